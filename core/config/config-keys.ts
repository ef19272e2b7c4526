import { editDistance } from "../did-you-mean.js";
import { isPlainObject } from "./plain-object.js";

/** The keys keel's config knows, per section (`""` is the top level). Other tools' keys in shared files are not keel's to judge. */
const KNOWN: Record<string, readonly string[]> = {
  "": ["$schema", "permissions", "model", "output", "mcp", "agent", "sandbox", "hooks", "commandEnv"],
  commandEnv: ["pass"],
  sandbox: ["mode", "network", "denyRead", "credentials", "workspaceCommands", "unixSockets"],
  permissions: ["allow", "ask", "deny"],
  model: ["name", "baseUrl", "apiKeyEnv", "headers", "contextWindow", "maxOutputTokens", "timeoutMs", "streamIdleTimeoutMs", "maxRetries", "stream"],
  output: ["maxChars"],
  mcp: ["lazy", "startupTimeoutMs", "toolTimeoutMs", "elicitation"],
  agent: ["maxSteps", "systemPrompt", "toolSearchShare", "pruneAt", "compactAt", "budgets"],
  "agent.budgets": ["maxTokens", "maxToolCalls", "maxModelCalls"],
};

/** True for a top-level key keel's config defines. */
export function isKnownTopLevelKey(key: string): boolean {
  return KNOWN[""]!.includes(key);
}

/** True for a key keel's config defines in `section` (e.g. `model`, `baseUrl`). */
export function isKnownKey(section: string, key: string): boolean {
  return KNOWN[section]?.includes(key) ?? false;
}

/** An unknown key in a keel config file. */
export interface UnknownKey {
  /** Dotted path of the key, e.g. `permisions` or `permissions.alow`. */
  key: string;
  /** The known key it most likely means, when one is close. */
  suggestion?: string;
}

/**
 * Unknown keys of a keel config file (top level and keel's own sections), each with the known key
 * it most likely misspells. A misspelled safety key (`permisions`) would otherwise be silently inert.
 */
export function unknownKeys(value: Record<string, unknown>): UnknownKey[] {
  const out: UnknownKey[] = [];
  const visit = (obj: Record<string, unknown>, section: string) => {
    const known = KNOWN[section];
    if (!known) return;
    for (const [key, v] of Object.entries(obj)) {
      const path = section ? `${section}.${key}` : key;
      // "$comment" is a note (JSON has no comments; `keel init` writes them): never a key.
      if (key === "$comment") continue;
      if (!known.includes(key)) {
        const suggestion = closest(key, known);
        out.push({ key: path, ...(suggestion ? { suggestion: section ? `${section}.${suggestion}` : suggestion } : {}) });
      } else if (isPlainObject(v)) visit(v, path);
    }
  };
  visit(value, "");
  return out;
}

/** The known key within edit distance 2 (or differing only in case), if any. */
function closest(key: string, known: readonly string[]): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const name of known) {
    const d = name.toLowerCase() === key.toLowerCase() ? 0 : editDistance(key.toLowerCase(), name.toLowerCase());
    if (d <= 2 && (!best || d < best.d)) best = { name, d };
  }
  return best?.name;
}
