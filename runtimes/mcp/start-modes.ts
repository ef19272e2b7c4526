import type { Host } from "../../core/index.js";
import type { McpConnection } from "./mcp-connection.js";
import { filterTools } from "./server-tools.js";
import type { McpToolInfo } from "./tool-cache.js";
import { assignToolNames, MAX_TOOL_NAME, sanitize } from "./tool-names.js";

/** How a server starts while the host opens: awaited, on its first call, or unawaited behind a fresh cached tool list. */
export type StartMode = "now" | "deferred" | "background";

/** How each server starts, and the servers to start after all when the tool turns out not to be registered. */
export interface StartPlan {
  mode: (conn: McpConnection) => StartMode;
  /** The tool of `startServers: { tool }` and the servers its name may also belong to that were deferred on the cached lists' word. */
  unsure?: { tool: string; servers: McpConnection[] };
}

/**
 * How each server starts, from the host's `startServers`: all now, all in the background, none, or
 * now only those a call of one tool may need — `mcp__<server>__…` names its server; a tool already
 * registered and not by MCP (a built-in) needs none; any other name (an alias, a plugin or
 * workflow tool) may reach any server. A name several servers fit (cut to 64 characters after a
 * long shared prefix, a server name holding `__`, names that sanitize alike) starts only the one
 * whose cached tool list (`cached`) registers it, when every such server has one; else all of them
 * (starting them caches their lists for the next call).
 */
export async function startModes(
  host: Host,
  connections: readonly McpConnection[],
  cached: (conn: McpConnection) => Promise<McpToolInfo[] | undefined>,
): Promise<StartPlan> {
  const opt = host.options.startServers ?? true;
  if (opt === "background") return { mode: () => "background" };
  if (typeof opt === "boolean") return { mode: () => (opt ? "now" : "deferred") };
  const { tool } = opt;
  const named = connections.filter((c) => servesName(c.name, tool));
  if (named.length) {
    const owner = named.length > 1 ? await cachedOwner(tool, named, cached) : named[0];
    if (!owner) return { mode: (c) => (named.includes(c) ? "now" : "deferred") };
    return { mode: (c) => (c === owner ? "now" : "deferred"), unsure: named.length > 1 ? { tool, servers: named.filter((c) => c !== owner) } : undefined };
  }
  const known = host.registry.resolve(tool);
  if (known && !known.alias && known.tool.source.kind !== "mcp") return { mode: () => "deferred" };
  return { mode: () => "now" };
}

/** True when `tool` is named like a tool of server `server` (`mcp__<server>__…`, also when cut to 64 characters); several servers may fit one name. */
export function servesName(server: string, tool: string): boolean {
  const prefix = `mcp__${sanitize(server)}__`;
  // A name over 64 characters keeps its first 55 (then `_<hash>`): compare what is left of the prefix.
  return tool.startsWith(prefix.slice(0, Math.min(prefix.length, MAX_TOOL_NAME - 9)));
}

/** The server whose cached tools get the name `tool` as keel names them (see `assignToolNames`); undefined when a server has no cached list or none gets it. */
async function cachedOwner(
  tool: string,
  named: McpConnection[],
  cached: (conn: McpConnection) => Promise<McpToolInfo[] | undefined>,
): Promise<McpConnection | undefined> {
  const lists = await Promise.all(named.map(cached));
  if (lists.some((l) => l === undefined)) return undefined;
  const pairs = named.flatMap((c, i) => filterTools(c, lists[i]!).map((t) => ({ server: c.name, tool: t.name })));
  const owner = assignToolNames(
    pairs,
    () => false,
    () => undefined,
  ).find((n) => n.name === tool);
  return owner && named.find((c) => c.name === owner.server);
}
