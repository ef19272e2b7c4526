import type { ToolDefinition } from "../core/types.js";
import type { VirtualToolSpec } from "../manifests/plugin/plugin-manifest-schema.js";
import { renderTemplate } from "./render-template.js";

/** Metadata keys every virtual tool result carries; manifest metadata may add keys but never overwrite these. */
export const RESERVED_VIRTUAL_TOOL_METADATA = ["action", "plugin_name", "virtual_tool"] as const;

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
  return {
    name: spec.name,
    description: spec.description ?? `Virtual tool from plugin ${plugin}.`,
    inputSchema: virtualToolSchema(spec),
    source: { kind: "plugin", id: plugin },
    risk: ["read"],
    readOnly: true,
    concurrency: "safe",
    metadata,
    async execute(input) {
      const values = input !== null && typeof input === "object" && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
      const rendered = renderTemplate(spec.responseTemplate, values);
      return { content: rendered.text, data: null, metadata: { ...metadata } };
    },
  };
}
