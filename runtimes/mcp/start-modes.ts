import type { Host } from "../../core/index.js";
import type { McpConnection } from "./mcp-connection.js";
import { MAX_TOOL_NAME, sanitize } from "./tool-names.js";

/** How a server starts while the host opens: awaited, on its first call, or unawaited behind a fresh cached tool list. */
export type StartMode = "now" | "deferred" | "background";

/**
 * How each server starts, from the host's `startServers`: all now, all in the background, none, or
 * now only those a call of one tool may need — `mcp__<server>__…` names its server; a tool already
 * registered and not by MCP (a built-in) needs none; any other name (an alias, a plugin or
 * workflow tool) may reach any server.
 */
export function startModes(host: Host, connections: readonly McpConnection[]): (conn: McpConnection) => StartMode {
  const opt = host.options.startServers ?? true;
  if (opt === "background") return () => "background";
  if (typeof opt === "boolean") return () => (opt ? "now" : "deferred");
  const { tool } = opt;
  const named = connections.filter((c) => servesName(c.name, tool));
  if (named.length) return (c) => (named.includes(c) ? "now" : "deferred");
  const known = host.registry.resolve(tool);
  if (known && !known.alias && known.tool.source.kind !== "mcp") return () => "deferred";
  return () => "now";
}

/** True when `tool` is named like a tool of server `server` (`mcp__<server>__…`, also when cut to 64 characters). */
function servesName(server: string, tool: string): boolean {
  const prefix = `mcp__${sanitize(server)}__`;
  // A name over 64 characters keeps its first 55 (then `_<hash>`): compare what is left of the prefix.
  return tool.startsWith(prefix.slice(0, Math.min(prefix.length, MAX_TOOL_NAME - 9)));
}
