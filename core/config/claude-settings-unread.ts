import { isPlainObject } from "./plain-object.js";

/** The Claude Code settings keel reads from `.claude/settings*.json`: key → the sub-keys it reads (`true`: all of them). */
const READ_CLAUDE_SETTINGS: Readonly<Record<string, Readonly<Record<string, true | readonly string[]>> | true>> = {
  $schema: true,
  permissions: { allow: true, ask: true, deny: true },
  hooks: true,
  sandbox: { filesystem: ["denyRead"] },
  // Read by the MCP runtime (claude-disabled-servers.ts): the named `.mcp.json` servers do not start.
  disabledMcpjsonServers: true,
};

/**
 * The keys of a Claude Code settings file keel does not read (`env`, `permissions.defaultMode`,
 * `sandbox.enabled`, …), as dotted paths, at most three levels deep; keys beginning with `_` are notes.
 */
export function unreadClaudeSettings(settings: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(settings)) {
    if (key.startsWith("_")) continue;
    const read = Object.hasOwn(READ_CLAUDE_SETTINGS, key) ? READ_CLAUDE_SETTINGS[key] : undefined;
    if (read === undefined) out.push(key);
    else if (read !== true && isPlainObject(value))
      for (const [sub, inner] of Object.entries(value)) {
        const subRead = Object.hasOwn(read, sub) ? read[sub] : undefined;
        if (subRead === undefined) out.push(`${key}.${sub}`);
        else if (subRead !== true && isPlainObject(inner))
          for (const leaf of Object.keys(inner)) if (!subRead.includes(leaf)) out.push(`${key}.${sub}.${leaf}`);
      }
  }
  return out;
}

/** Most settings a diagnostic names, and the longest name it shows whole: a repository's settings file may hold any number, of any length. */
const MAX_LISTED = 20;
const MAX_NAME = 80;

/** `names` for a diagnostic: the first MAX_LISTED, each cut to MAX_NAME characters, and how many more there are. */
export function listedSettings(names: readonly string[]): string {
  const shown = names.slice(0, MAX_LISTED).map((n) => (n.length > MAX_NAME ? `${n.slice(0, MAX_NAME - 1)}…` : n));
  return shown.join(", ") + (names.length > MAX_LISTED ? ` and ${names.length - MAX_LISTED} more` : "");
}
