import { renderTemplate, type ToolContext, type ToolDefinition } from "../core/index.js";
import type { VirtualToolSpec } from "../manifests/plugin/plugin-manifest-schema.js";

/**
 * Metadata keys keel owns in a virtual tool's result: the three every result carries, and `hook_stop`
 * (a hook's signal that the agent's turn ends). Manifest metadata may add keys but never set these.
 */
export const RESERVED_VIRTUAL_TOOL_METADATA = ["action", "plugin_name", "virtual_tool", "hook_stop"] as const;

/** The input schema a virtual tool advertises: its `parameters`, default `{"type":"object","properties":{}}`. */
export function virtualToolSchema(spec: VirtualToolSpec): Record<string, unknown> {
  return { type: "object", properties: {}, ...(spec.parameters ?? {}) };
}

/**
 * A tool defined only by a template: renders `response_template` with the (already validated)
 * arguments through the safe renderer. Read-only, no side effects; never throws.
 */
export function createVirtualTool(plugin: string, spec: VirtualToolSpec): ToolDefinition {
  const metadata: Record<string, unknown> = { ...(spec.metadata ?? {}), action: "plugin_virtual_tool", plugin_name: plugin, virtual_tool: spec.name };
  delete metadata.hook_stop;
  return {
    name: spec.name,
    description: spec.description ?? `Virtual tool from plugin ${plugin}.`,
    inputSchema: virtualToolSchema(spec),
    source: { kind: "plugin", id: plugin },
    risk: ["read"],
    readOnly: true,
    metadata,
    async execute(input, ctx) {
      const values = input !== null && typeof input === "object" && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
      const rendered = renderTemplate(spec.responseTemplate, values);
      const count = countSessionResult(ctx, plugin);
      return { content: rendered.text, data: null, metadata: { ...metadata, ...(count ? { plugin_session_results: count } : {}) } };
    },
  };
}

/**
 * Counts a virtual tool result in the session's plugin state (`plugin:<name>.virtualToolResults`),
 * which the agent loop persists with the session, so the count survives resume. Outside a session: undefined.
 */
function countSessionResult(ctx: ToolContext, plugin: string): number | undefined {
  if (!ctx.sessionId) return undefined;
  const state = ctx.host.service("session-state")?.get(ctx.sessionId);
  if (!state) return undefined;
  const key = `plugin:${plugin}`;
  const own = (state[key] ??= {}) as { virtualToolResults?: number };
  own.virtualToolResults = (own.virtualToolResults ?? 0) + 1;
  return own.virtualToolResults;
}
