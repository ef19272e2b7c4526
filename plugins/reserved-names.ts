import { fmt, ON_DEMAND_TOOLS, type ToolRegistry, type ToolSource } from "../core/index.js";

/** Namespaces reserved whatever is registered: MCP server tools and the MCP runtime's own tools. */
const FIXED_PREFIXES: ReadonlyArray<[string, string]> = [
  ["mcp__", "MCP server tools"],
  ["mcp_", "the MCP runtime's tools"],
];

/** Names a plugin may not register as an alias or virtual tool (or, from a code plugin, a tool). */
export interface ReservedNames {
  /** Why a workspace plugin may not use `name` (for a diagnostic), or undefined when it may. Case-insensitive. */
  reason(name: string): string | undefined;
  /**
   * Why no plugin, at any level, may use `name`: it is exactly the name of one of keel's own tools
   * that is registered in some hosts only (ON_DEMAND_TOOLS: `skill`, the `mcp_*` helpers, …), so it
   * is refused even where that tool happens not to be registered. Undefined when it is not one.
   */
  keelTool(name: string): string | undefined;
}

/**
 * The reserved names, derived from what is registered now (call it after built-ins and runtimes
 * registered their tools) plus keel's on-demand tools (ON_DEMAND_TOOLS), registered or not: for a
 * workspace plugin `mcp__*`, `mcp_*`, and for every built-in or runtime tool its exact name and its
 * family `prefix_*` (the text up to its first `_`: `task_`, `read_`, ...); a workspace alias
 * `task_list2 → bash` could otherwise borrow what rules grant `task_*`. For every plugin the exact
 * names of the on-demand tools: an alias `skill` in a workspace without skills would otherwise stand
 * in for keel's skill tool. Never throws.
 */
export function reservedNames(registry: ToolRegistry): ReservedNames {
  const exact = new Map<string, string>();
  const prefixes = new Map<string, string>(FIXED_PREFIXES);
  const reserve = (name: string, source: ToolSource) => {
    if (source.kind !== "builtin" && source.kind !== "runtime") return;
    const lower = name.toLowerCase();
    if (!exact.has(lower)) exact.set(lower, `the ${fmt(source)} tool "${name}"`);
    const cut = lower.indexOf("_");
    if (cut > 0 && !prefixes.has(lower.slice(0, cut + 1))) prefixes.set(lower.slice(0, cut + 1), `tools of ${fmt(source)} such as "${name}"`);
  };
  for (const tool of registry.list()) reserve(tool.name, tool.source);
  for (const alias of registry.listAliases()) reserve(alias.name, alias.source);
  for (const tool of ON_DEMAND_TOOLS) reserve(tool.name, tool.source);
  const onDemand = new Map(ON_DEMAND_TOOLS.map((t) => [t.name, t]));
  // Longest first, so `mcp__x` is explained as an MCP server tool rather than as `mcp_*`.
  const ordered = [...prefixes].sort((a, b) => b[0].length - a[0].length || (a[0] < b[0] ? -1 : 1));
  return {
    reason(name) {
      const lower = name.toLowerCase();
      const owner = exact.get(lower);
      if (owner) return `the name belongs to ${owner}`;
      const hit = ordered.find(([prefix]) => lower.startsWith(prefix));
      return hit ? `"${hit[0]}*" is a reserved namespace (${hit[1]})` : undefined;
    },
    keelTool(name) {
      const tool = onDemand.get(name);
      return tool ? `the name belongs to keel's ${fmt(tool.source)} tool "${name}", which keel registers ${tool.when}` : undefined;
    },
  };
}
