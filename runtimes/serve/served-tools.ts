import { globMatcher, type Host, type ToolIntent } from "../../core/index.js";

/** Prefix of the tools that run a workflow (`workflow__NAME`). */
export const WORKFLOW_TOOL_PREFIX = "workflow__";

/** One tool as `keel mcp serve` lists it, and the intent a call of it becomes. */
export interface ServedTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations: { readOnlyHint?: boolean; openWorldHint?: boolean };
  /** The pipeline intent for a call with `args` (a workflow tool becomes `workflow_run`). */
  intent(args: Record<string, unknown>): ToolIntent;
}

/** Decides by name whether a tool is served (`--tools` globs); every tool when no globs are given. */
export function toolFilter(globs: readonly string[] | undefined): (name: string) => boolean {
  if (!globs?.length) return () => true;
  const matchers = globs.map((g) => globMatcher(g, { dot: true }, "none"));
  return (name) => matchers.some((m) => m(name));
}

/**
 * Every tool the host would show a model: the registry's tools and aliases that no plugin blocks
 * (built-ins, runtimes, plugin aliases and virtual tools, upstream MCP tools), then one
 * `workflow__NAME` tool per workflow the workspace may run (prompt commands are served as prompts),
 * filtered by `served`. Sorted by name; never throws.
 */
export function servedTools(host: Host, served: (name: string) => boolean): ServedTool[] {
  const tools: ServedTool[] = [];
  const taken = new Set<string>();
  for (const row of host.registry.listing()) {
    taken.add(row.name);
    if (!served(row.name)) continue;
    const resolved = host.registry.resolve(row.name);
    if (!resolved || host.hooks.toolBlocked.call({ host, calledAs: row.name, tool: resolved.tool })) continue;
    const name = row.name;
    tools.push({
      name,
      description: row.description,
      inputSchema: objectSchema(row.inputSchema),
      annotations: { readOnlyHint: row.readOnly, ...(row.risk.includes("network") ? { openWorldHint: true } : {}) },
      intent: (input) => ({ tool: name, input }),
    });
  }
  const workflows = host.service("workflows");
  for (const wf of workflows?.list() ?? []) {
    if (wf.steps.length === 1 && wf.steps[0]!.kind === "command") continue;
    const name = `${WORKFLOW_TOOL_PREFIX}${wf.name}`;
    if (taken.has(name) || !/^[A-Za-z0-9_.-]{1,128}$/.test(name) || !served(name) || workflows!.needsTrust(wf)) continue;
    taken.add(name);
    tools.push({
      name,
      description: `${wf.description ?? `Workflow ${wf.name}`} (keel workflow, ${wf.steps.length} step${wf.steps.length === 1 ? "" : "s"}; each step runs through keel's permission pipeline)`,
      inputSchema: objectSchema(wf.parameters),
      annotations: { readOnlyHint: false },
      intent: (args) => ({ tool: "workflow_run", input: { workflow_name: wf.name, arguments: args } }),
    });
  }
  return tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** MCP requires an object schema at the top of `inputSchema`: anything else is wrapped as a plain object. */
function objectSchema(schema: unknown): Record<string, unknown> {
  if (schema && typeof schema === "object" && !Array.isArray(schema) && (schema as { type?: unknown }).type === "object")
    return schema as Record<string, unknown>;
  if (schema && typeof schema === "object" && !Array.isArray(schema) && (schema as { type?: unknown }).type === undefined)
    return { type: "object", ...(schema as Record<string, unknown>) };
  return { type: "object" };
}
