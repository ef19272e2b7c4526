import { createInterface } from "node:readline/promises";

/** An elicitation request from a server, as keel passes it to an elicitor. */
export interface ElicitationRequest {
  server: string;
  message: string;
  mode?: string;
  requestedSchema?: {
    properties?: Record<string, { type?: string; description?: string; title?: string; default?: unknown; enum?: unknown[] }>;
    required?: string[];
  };
}

/** The answer to an elicitation (MCP `ElicitResult`). */
export interface ElicitationAnswer {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, string | number | boolean | string[]>;
}

/**
 * Answers a server's `elicitation/create`. Must not throw for a user's refusal (return decline).
 * `waitsForUser`: it asks a person (time spent in it does not count against tool timeouts, and an
 * answer that does not match the form is asked again).
 */
export type Elicitor = ((request: ElicitationRequest, signal: AbortSignal) => Promise<ElicitationAnswer>) & { waitsForUser?: boolean };

/** Elicitation policy from `mcp.elicitation` config: `decline` (default), `cancel`, or `ask` (TTY only). */
export type ElicitationPolicy = "decline" | "cancel" | "ask";

/**
 * The default elicitor. Without a configured policy, or with `ask`, it prompts on the terminal when
 * stdin and stderr are TTYs (each field, Enter keeps the default) and declines otherwise;
 * `decline` and `cancel` answer so without asking. URL-mode elicitations are declined.
 */
export function policyElicitor(policy?: ElicitationPolicy, interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY)): Elicitor {
  const elicitor: Elicitor = async (req, signal) => {
    if (policy === "cancel") return { action: "cancel" };
    if (policy === "decline" || !interactive || req.mode === "url") return { action: "decline" };
    return askOnTerminal(req, signal);
  };
  elicitor.waitsForUser = interactive && policy !== "cancel" && policy !== "decline";
  return elicitor;
}

/** Accepts every elicitation with an empty answer, so the SDK fills in the schema's defaults (tests, conformance). */
export const acceptDefaultsElicitor: Elicitor = async () => ({ action: "accept", content: {} });

async function askOnTerminal(req: ElicitationRequest, signal: AbortSignal): Promise<ElicitationAnswer> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    process.stderr.write(`\n? MCP server "${req.server}" asks: ${req.message}\n`);
    const content: Record<string, string | number | boolean> = {};
    for (const [key, prop] of Object.entries(req.requestedSchema?.properties ?? {})) {
      const hint = prop.enum ? ` (${prop.enum.join("/")})` : prop.type ? ` (${prop.type})` : "";
      const def = prop.default !== undefined ? ` [${String(prop.default)}]` : "";
      const answer = (await rl.question(`  ${prop.title ?? key}${hint}${def}: `, { signal })).trim();
      if (answer === "") continue;
      if (prop.type === "number" || prop.type === "integer") content[key] = Number(answer);
      else if (prop.type === "boolean") content[key] = /^(y|yes|true|1)$/i.test(answer);
      else content[key] = answer;
    }
    const ok = (await rl.question("  Send these answers? [y]es / [n]o: ", { signal })).trim().toLowerCase();
    return ok === "y" || ok === "yes" ? { action: "accept", content } : { action: "decline" };
  } catch {
    return { action: "cancel" };
  } finally {
    rl.close();
  }
}
