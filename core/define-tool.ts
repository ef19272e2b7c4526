import type { FromSchema, JSONSchema } from "json-schema-to-ts";
import type { JsonSchema, ToolDefinition } from "./types.js";

/** The TypeScript type of the values a JSON Schema literal accepts (types only: no run-time cost). */
export type InputOf<S extends JSONSchema> = FromSchema<S>;

/** A JSON Schema written as a literal, from which `InputOf` derives a type. */
export type SchemaLiteral = JSONSchema;

/**
 * A tool whose input schema is written once: `execute` receives the type derived from the schema
 * literal (`InputOf<S>`; the pipeline validates every input against that same schema before
 * `execute` runs). The schema is kept exactly as written. Costs nothing at run time.
 */
export function defineTool<const S extends SchemaLiteral, I = InputOf<S>>(
  inputSchema: S,
  tool: Omit<ToolDefinition<I>, "inputSchema">,
): ToolDefinition<NoInfer<I>> {
  return { ...tool, inputSchema: inputSchema as JsonSchema };
}

/**
 * `{type: "object", properties, required, additionalProperties: false}` with the literal types kept,
 * so `InputOf` can derive the input type from it (property schemas shared between tools must be
 * declared `as const`).
 */
export function objectSchema<const P extends Record<string, SchemaLiteral>, const R extends readonly (keyof P & string)[] = []>(
  properties: P,
  required?: R,
): { type: "object"; properties: P; required: R; additionalProperties: false } {
  return { type: "object", properties, required: (required ?? []) as unknown as R, additionalProperties: false };
}
