import { type CompiledSchema, globMatcher, type Host, redactDeep, type RiskTag, type ToolDefinition, ToolError } from "../../core/index.js";
import { cleanMcpErrorText } from "./error-text.js";
import { mapCallResult } from "./map-result.js";
import { boundedText } from "./notification-budget.js";
import { outputProblem } from "./output-schema.js";
import type { McpConnection } from "./mcp-connection.js";
import type { McpToolInfo } from "./tool-cache.js";

/** Default per-call timeout of MCP tools when neither the manifest nor config sets one. */
export const DEFAULT_MCP_TOOL_TIMEOUT_MS = 120_000;

/**
 * The server's tools keel offers: those that pass its `enabledTools` / `disabledTools` globs and do
 * not require task-augmented execution (`execution.taskSupport: "required"`, which keel does not support yet).
 */
export function filterTools(conn: McpConnection, tools: McpToolInfo[]): McpToolInfo[] {
  // Globs from a workspace's .mcp.json: matched in linear time; one keel cannot compile enables nothing and disables everything.
  const on = conn.config.enabledTools?.map((g) => globMatcher(g, {}, "none"));
  const off = conn.config.disabledTools?.map((g) => globMatcher(g, {}, "all"));
  return tools.filter((t) => (!on?.length || on.some((m) => m(t.name))) && !off?.some((m) => m(t.name)) && !requiresTasks(t));
}

/** True when a tool can only be called as a task (`execution.taskSupport: "required"`). */
export function requiresTasks(tool: McpToolInfo): boolean {
  return tool.execution?.taskSupport === "required";
}

/**
 * A registry entry for one server tool. Its schema comes from the server; a schema ajv cannot
 * compile gets a diagnostic and `validateInput: false` (the tool stays callable). Results are
 * mapped by `mapCallResult`; failures become ToolErrors naming the server. Failure texts and
 * progress messages are redacted (the server's secrets); successful results are the server's data, kept as sent.
 */
export function serverToolDefinition(host: Host, conn: McpConnection, info: McpToolInfo, name: string): ToolDefinition {
  const readOnly = info.annotations?.readOnlyHint === true;
  const risk: RiskTag[] = readOnly ? ["read"] : conn.config.transport === "stdio" ? ["execute"] : ["network"];
  // A timeout past what a timer holds is capped where the timers are set (the pipeline's, the connection's).
  const timeoutMs = conn.config.toolTimeoutMs ?? host.config.mcp?.toolTimeoutMs ?? DEFAULT_MCP_TOOL_TIMEOUT_MS;
  const inputSchema = isObject(info.inputSchema) ? info.inputSchema : { type: "object" };
  const where = { file: conn.config.origin.file, path: conn.config.origin.path };
  let outputWarned = false;
  let outputCompiled: CompiledSchema | undefined;
  const outputSchema = () => (outputCompiled ??= host.validator.forSchema(info.outputSchema!));
  const def: ToolDefinition = {
    name,
    description: info.description ?? info.title ?? `Tool "${info.name}" of MCP server "${conn.name}".`,
    inputSchema,
    source: { kind: "mcp", id: conn.name },
    risk,
    readOnly,
    timeoutMs,
    metadata: { server_name: conn.name, mcp_tool: info.name },
    execute(input, ctx) {
      // The pipeline's deadline and cancel reach the request through `ctx.onStop` (no per-call
      // AbortSignal; see the connection's call path). A progress token only when the caller insists, or on the
      // tool's first call and later calls of a tool that did report progress (see `reportsProgress`).
      const known = conn.reportsProgress.get(info.name);
      const progress = ctx.run.progress ?? known !== false;
      let reported = false;
      const onProgress = progress
        ? (p: { progress: number; total?: number; message?: string }) => {
            reported = true;
            const events = ctx.run.events ?? ctx.host.events;
            if (!conn.admitNotification(events)) return;
            events.emit({
              type: "mcp_progress",
              callId: ctx.callId,
              server: conn.name,
              tool: info.name,
              progress: p.progress,
              total: p.total,
              message: p.message === undefined ? undefined : boundedText(conn.redact(String(p.message))),
            });
          }
        : undefined;
      return conn.callTool(
        info.name,
        input,
        ctx,
        timeoutMs,
        (result) => {
          if (onProgress && known !== true) conn.reportsProgress.set(info.name, reported);
          const problem = outputProblem(outputSchema, info, result, (reason) => {
            if (outputWarned) return;
            outputWarned = true;
            host.diagnostics.warn(
              "mcp",
              `Output schema of tool "${info.name}" from MCP server "${conn.name}" could not be compiled (${reason}); its results are not checked.`,
              where,
            );
          });
          if (problem)
            throw new ToolError(conn.redact(`MCP server "${conn.name}" returned an invalid result: ${problem}.`), "execution_failed", null, {
              server_name: conn.name,
            });
          // The tool's own metadata (server_name, mcp_tool) is merged in by the pipeline.
          const mapped = mapCallResult(result, {});
          // An error the server reports is an error message like any other: no secrets in it.
          if (mapped.ok === false) {
            mapped.content = conn.redact(cleanMcpErrorText(mapped.content));
            mapped.data = redactDeep(mapped.data, conn.secrets);
          }
          return mapped;
        },
        onProgress,
        ctx.run.elicit,
      );
    },
  };
  // Compiled once per distinct schema; the pipeline's validate phase reuses it.
  const problem = info.schemaProblem ?? compileProblem(host, inputSchema);
  if (problem) {
    def.validateInput = false;
    host.diagnostics.warn(
      "mcp",
      // The problem may come from a server's listing or a repository's committed tool cache: bounded (boundedText).
      `Input schema of tool "${info.name}" from MCP server "${conn.name}" is invalid (${boundedText(problem)}); ${name} stays callable without input validation.`,
      where,
    );
  }
  return def;
}

function compileProblem(host: Host, schema: Record<string, unknown>): string | undefined {
  const compiled = host.validator.forSchema(schema);
  return compiled.ok ? undefined : compiled.error;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
