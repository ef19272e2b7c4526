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

/** Where and how a disabled server was turned off, for messages: `FILE ("enabled": false or "disabled": true)` or `FILE (disabledMcpjsonServers)`. */
export function disabledWhere(config: Pick<McpServerConfig, "disabledBy" | "origin">): string {
  return config.disabledBy !== undefined ? `${config.disabledBy} (${FIELD})` : `${config.origin.file} ("enabled": false or "disabled": true)`;
}
