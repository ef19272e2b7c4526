import type { JsonSchema, ToolDefinition, ToolResult } from "../core/index.js";
import type { CodePluginTool, ZodSchemaLike } from "./code-plugin-api.js";

/** Why a tool a code plugin registers cannot be used, or undefined when its shape is right. */
export function codeToolProblem(tool: unknown): string | undefined {
  if (tool === null || typeof tool !== "object") return "registerTool needs an object {name, description, inputSchema, execute}";
  const t = tool as Partial<CodePluginTool>;
  if (typeof t.name !== "string" || !t.name.trim() || /\s/.test(t.name)) return "the tool's name must be a non-blank string without whitespace";
  if (typeof t.description !== "string" || !t.description.trim()) return `tool "${t.name}" needs a description (a non-blank string)`;
  if (typeof t.execute !== "function") return `tool "${t.name}" needs an execute(input, ctx) function`;
  const schema = t.inputSchema as Record<string, unknown> | undefined;
  if (schema === null || typeof schema !== "object") return `tool "${t.name}" needs an inputSchema (a JSON Schema object or a zod object schema)`;
  if (!isZod(schema) && schema.type !== "object") return `tool "${t.name}": inputSchema must have type "object" (tool arguments are an object)`;
  return undefined;
}

/**
 * Turns a code plugin's tool into a registry tool (source `plugin:<name>`): a zod schema becomes
 * JSON Schema (zod is imported only then), a string result becomes the content, and any other
 * value becomes JSON content with the value as `data`. Throws when a zod schema cannot be converted.
 */
export async function toToolDefinition(plugin: string, tool: CodePluginTool): Promise<ToolDefinition> {
  const inputSchema = isZod(tool.inputSchema) ? await zodToJsonSchema(tool.inputSchema) : (tool.inputSchema as JsonSchema);
  return {
    name: tool.name,
    description: tool.description,
    inputSchema,
    source: { kind: "plugin", id: plugin },
    risk: tool.risk ?? ["execute"],
    readOnly: tool.readOnly === true,
    ...(tool.timeoutMs === undefined ? {} : { timeoutMs: tool.timeoutMs }),
    metadata: { plugin_name: plugin },
    async execute(input, ctx) {
      return asResult(await tool.execute(input, ctx));
    },
  };
}

function isZod(schema: unknown): schema is ZodSchemaLike {
  return schema !== null && typeof schema === "object" && "_zod" in schema;
}

async function zodToJsonSchema(schema: ZodSchemaLike): Promise<JsonSchema> {
  const { z } = await import("zod");
  const json = z.toJSONSchema(schema as unknown as Parameters<typeof z.toJSONSchema>[0], { io: "input" }) as JsonSchema;
  delete json.$schema;
  if (json.type !== "object") throw new TypeError(`the zod schema must describe an object (got type ${String(json.type)})`);
  return json;
}

function asResult(value: ToolResult | string | unknown): ToolResult {
  if (typeof value === "string") return { content: value };
  if (value !== null && typeof value === "object" && typeof (value as ToolResult).content === "string") return value as ToolResult;
  return { content: value === undefined ? "" : JSON.stringify(value), data: value ?? null };
}
