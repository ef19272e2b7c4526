import { defineTool, type Host, type Observation, type ToolContext, type ToolDefinition, ToolError, type ToolResult } from "../../core/index.js";
import type { McpConnection } from "./mcp-connection.js";
import type { McpManager } from "./mcp-manager.js";
import { requiresTasks } from "./server-tools.js";
import { usableServers } from "./usable-servers.js";

/** Name of the generic call tool. */
export const MCP_CALL_TOOL = "mcp_call_tool";

/**
 * `mcp_call_tool`: calls a server tool by its own name by re-entering the pipeline for the tool
 * keel registered for it (`mcp__<server>__<tool>`), so visibility, validation, plugin hooks and
 * blocks, permission rules and approval apply exactly as for a direct call. A tool keel did not
 * register (filtered by `enabledTools`/`disabledTools`, not listed, name taken) cannot be called.
 *
 * Its own risk is empty (allowed by default, not read-only): the nested call makes the permission
 * decision, so a plain call asks once; a deny or ask rule naming `mcp_call_tool` still applies
 * first. It has no timeout of its own (the nested tool's applies). The nested observation becomes
 * its result with the same `ok` and `code`; failures are observations, never thrown past the pipeline.
 */
export function mcpCallTool(manager: McpManager): ToolDefinition {
  const inputSchema = {
    type: "object",
    properties: {
      tool_name: { type: "string", description: "The tool's name on the server (as mcp_list_tools shows it)" },
      server: { type: "string", description: "MCP server name (case-insensitive)" },
      arguments: { type: "object", description: "The tool's arguments" },
    },
    required: ["tool_name"],
    additionalProperties: false,
  } as const;
  return defineTool(inputSchema, {
    name: MCP_CALL_TOOL,
    description:
      "Call a tool of an MCP server by its own name. Pass `server` when the tool name exists on several servers. The call is judged as the MCP tool itself (its permission rules, plugin blocks and approval apply).",
    source: { kind: "runtime", id: "mcp" },
    risk: [],
    readOnly: false,
    timeoutMs: 0,
    async execute(input, ctx) {
      const target = resolveTarget(manager, ctx.host, input.tool_name, input.server);
      const nested = await ctx.host.runTool(
        { tool: target, input: input.arguments ?? {}, callId: `${ctx.callId}.1` },
        // The caller's context (approver, --yes, session approvals, visibility, events, origin, cwd);
        // (with this call's signal, so cancelling or timing out this call ends the nested one).
        { ...ctx.run, signal: ctx.signal },
      );
      return resultOf(nested, target, ctx);
    },
  });
}

/**
 * The registered name of the one server tool `toolName` means (its name on the server, or the
 * registered `mcp__…` name itself; a name that is both, for different tools, is ambiguous); a
 * ToolError(precondition_failed) saying what to do otherwise.
 */
function resolveTarget(manager: McpManager, host: Host, toolName: string, server: string | undefined): string {
  const candidates = usableServers(manager, server);
  const owners = candidates.flatMap((conn) => {
    const name = manager.registeredName(conn, toolName);
    return name ? [{ conn, name }] : [];
  });
  // A registered `mcp__…` name means its own tool, also when another server names a tool so: it
  // competes with that server's claim (both named: pass `server`), and never loses to it silently.
  const registered = host.registry.get(toolName);
  const byRegistered = registered?.source.kind === "mcp" ? candidates.find((c) => c.name === registered.source.id) : undefined;
  if (byRegistered && !owners.some((o) => o.name === registered!.name)) owners.push({ conn: byRegistered, name: registered!.name });
  if (owners.length > 1)
    throw new ToolError(
      `Tool "${toolName}" exists on several MCP servers (${owners.map((o) => o.conn.name).join(", ")}); pass \`server\` to choose one.`,
      "precondition_failed",
    );
  if (owners.length === 1) return owners[0]!.name;
  const listed = candidates.filter((c) => c.tools.some((t) => t.name === toolName));
  const taskOnly = listed.find((c) => c.tools.some((t) => t.name === toolName && requiresTasks(t)));
  if (taskOnly)
    throw new ToolError(
      `Tool "${toolName}" of MCP server "${taskOnly.name}" can only run as a task (execution.taskSupport: "required"), which keel does not support yet.`,
      "precondition_failed",
    );
  if (listed.length) throw notEnabled(listed[0]!, toolName);
  if (server !== undefined)
    throw new ToolError(
      `MCP server "${candidates[0]!.name}" has no tool named "${toolName}" that keel registered. Run mcp_list_tools with server "${candidates[0]!.name}" to see its tools.`,
      "precondition_failed",
    );
  throw new ToolError(`No MCP server has a tool named "${toolName}". Run mcp_list_tools to see the tools, or pass \`server\`.`, "precondition_failed");
}

function notEnabled(conn: McpConnection, toolName: string): ToolError {
  return new ToolError(
    `Tool "${toolName}" of MCP server "${conn.name}" is not enabled in keel (it is excluded by "enabledTools"/"disabledTools" in ${conn.config.origin.file}, or its name clashed with another tool), so it cannot be called. Change the filter in the manifest to use it.`,
    "precondition_failed",
  );
}

/**
 * The nested observation as this call's result: same ok, code, content, data and artifacts. Its
 * metadata says which tool ran and where the nested call ended (`nested_phase`: `done`/`execute`
 * mean it executed); plugin guidance given for the nested tool is appended to the content.
 */
function resultOf(nested: Observation, target: string, ctx: ToolContext): ToolResult {
  const { source: _source, resolvedTool: _resolved, callId: nestedCallId, ...rest } = nested.metadata;
  const metadata = { ...rest, mcp_registered_tool: target, nested_call_id: nestedCallId, nested_phase: nested.phase };
  const guidance = [...nested.messages.beforeTool.map((m) => `- Before tool: ${m}`), ...nested.messages.afterResult.map((m) => `- After result: ${m}`)];
  let content =
    nested.code === "tool_not_visible"
      ? `${nested.content} If tool_search is available, search for it first: the tools it finds become callable.`
      : nested.content;
  if (guidance.length) content += `\n\nPlugin tool runtime guidance for \`${target}\` (called through ${ctx.calledAs}):\n${guidance.join("\n")}`;
  // A nested call that ended before executing keeps its phase: nothing ran, and the observation says so.
  const phase = nested.phase === "done" || nested.phase === "execute" ? undefined : nested.phase;
  return {
    ok: nested.ok,
    code: nested.ok ? undefined : nested.code,
    ...(phase ? { phase } : {}),
    content,
    data: nested.data,
    metadata,
    artifacts: nested.artifacts,
  };
}
