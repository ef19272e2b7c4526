import type { ConfigLayer, Diagnostics } from "../../core/index.js";
import type { McpServerConfig } from "../../manifests/mcp/mcp-server-config.js";

/** The Claude Code setting that names project MCP servers not to start. */
const FIELD = "disabledMcpjsonServers";

/**
 * The servers Claude Code settings (`.claude/settings*.json`) turn off with `disabledMcpjsonServers`:
 * lower-cased name → the first file naming it. Every file's list counts, trusted or not (it only
 * restricts), and the lists accumulate: a later file cannot turn a server back on. A value that is
 * not a list of names is a warning naming file and field; its string entries still count. Never throws.
 */
export function claudeDisabledServers(layers: readonly ConfigLayer[], diagnostics: Diagnostics): Map<string, string> {
  const out = new Map<string, string>();
  for (const layer of layers) {
    if (layer.source !== "claude" || !layer.value || !Object.hasOwn(layer.value, FIELD)) continue;
    const raw = layer.value[FIELD];
    const list = Array.isArray(raw) ? raw : [raw];
    if (!Array.isArray(raw) || list.some((n) => typeof n !== "string"))
      diagnostics.warn("mcp", `${FIELD} must be a list of MCP server names, such as ["tracker"]; only its names (strings) were applied.`, {
        file: layer.file,
        path: FIELD,
      });
    for (const name of list) if (typeof name === "string" && !out.has(name.toLowerCase())) out.set(name.toLowerCase(), layer.file);
  }
  return out;
}

/**
 * The servers with the workspace's manifest servers that `disabled` names switched off (`enabled: false`,
 * `disabledBy` the settings file), compared case-insensitively as keel compares server names. Only
 * servers of the workspace's own MCP manifests (`.mcp.json` and its siblings), as in Claude Code: your
 * `$KEEL_HOME/mcp.json` and plugins' servers are not the repository's to name.
 */
export function applyDisabledServers(servers: McpServerConfig[], disabled: ReadonlyMap<string, string>): McpServerConfig[] {
  if (!disabled.size) return servers;
  return servers.map((s) => {
    const by = s.origin.scope === "workspace" ? disabled.get(s.name.toLowerCase()) : undefined;
    return by === undefined ? s : { ...s, enabled: false, disabledBy: by };
  });
}

/** Most server names one diagnostic lists, and the longest name shown whole. */
const MAX_LISTED = 20;
const MAX_NAME = 80;

/**
 * Fails closed where a Claude Code settings file (`.claude/settings*.json`, any folder from the
 * workspace root to the working directory) could not be read (not valid JSON, not an object, a link
 * leading out of the workspace, …): its `disabledMcpjsonServers` may name any of the workspace's own
 * manifest servers — exactly those applyDisabledServers lets such a list turn off (`.mcp.json` and its
 * siblings; never yours or a plugin's) — so all of them that are still on are held back (`enabled:
 * false`, `disabledBy` the first such file, `disabledUnread` its error), with one warning per file
 * naming it, its error (JSON errors say line and column) and what to do. The file is never rewritten.
 */
export function holdBackForUnreadSettings(servers: McpServerConfig[], broken: readonly ConfigLayer[], diagnostics: Diagnostics): McpServerConfig[] {
  const unread = broken.filter((l) => l.source === "claude" && !l.value);
  const held = servers.filter((s) => s.origin.scope === "workspace" && s.enabled);
  if (!unread.length || !held.length) return servers;
  const names = held.map((s) => (s.name.length > MAX_NAME ? `${s.name.slice(0, MAX_NAME - 1)}…` : s.name));
  const listed = names.slice(0, MAX_LISTED).join(", ") + (names.length > MAX_LISTED ? ` and ${names.length - MAX_LISTED} more` : "");
  for (const layer of unread)
    diagnostics.warn(
      "mcp",
      `Claude Code settings file ${layer.file} could not be read (${layer.error ?? "unknown error"}), so keel cannot tell which of this workspace's MCP servers its ${FIELD} turns off: ${listed} ${held.length === 1 ? "was" : "were"} not started. Fix the file (keel never rewrites it) or remove it; the servers then start unless its ${FIELD} names them.`,
      { file: layer.file },
    );
  const first = unread[0]!;
  return servers.map((s) => (held.includes(s) ? { ...s, enabled: false, disabledBy: first.file, disabledUnread: first.error ?? "unknown error" } : s));
}

/** Where and how a disabled server was turned off, for messages: `FILE ("enabled": false or "disabled": true)`, `FILE (disabledMcpjsonServers)` or `FILE (unreadable: …)`. */
export function disabledWhere(config: Pick<McpServerConfig, "disabledBy" | "disabledUnread" | "origin">): string {
  if (config.disabledBy !== undefined && config.disabledUnread !== undefined)
    return `${config.disabledBy} (which could not be read: ${config.disabledUnread}; keel cannot tell whether its ${FIELD} names this server)`;
  return config.disabledBy !== undefined ? `${config.disabledBy} (${FIELD})` : `${config.origin.file} ("enabled": false or "disabled": true)`;
}

/** What to do to start a server Claude Code settings keep off (see disabledWhere). */
export function disabledHint(config: Pick<McpServerConfig, "disabledBy" | "disabledUnread" | "origin">): string {
  return config.disabledUnread !== undefined
    ? `disabled by ${disabledWhere(config)}; fix that file (keel never rewrites it) or remove it to start it`
    : `disabled by ${disabledWhere(config)}; remove it from that list to start it`;
}
