import type { McpToolInfo } from "./tool-cache.js";

/**
 * The fields keel keeps of one tool definition, each checked for its type: a definition from a server's
 * `tools/list` or read back from a tool cache (a file that may have been written by hand, by another keel
 * version, or committed in a repository's `.keel/`). An entry that is not an object or has no non-empty string
 * `name` is undefined (dropped); a malformed optional field is left out (`inputSchema` becomes `{type:
 * "object"}`), and so are annotations of the wrong type. `schemaProblem` is not set here. Never throws.
 */
export function toolFields(raw: unknown): McpToolInfo | undefined {
  if (!isObject(raw) || typeof raw.name !== "string" || !raw.name) return undefined;
  const info: McpToolInfo = {
    name: raw.name,
    title: typeof raw.title === "string" ? raw.title : undefined,
    description: typeof raw.description === "string" ? raw.description : undefined,
    inputSchema: isObject(raw.inputSchema) ? raw.inputSchema : { type: "object" },
    annotations: isObject(raw.annotations) ? annotations(raw.annotations) : undefined,
  };
  if (isObject(raw.outputSchema)) info.outputSchema = raw.outputSchema;
  const taskSupport = isObject(raw.execution) ? raw.execution.taskSupport : undefined;
  if (typeof taskSupport === "string") info.execution = { taskSupport };
  return info;
}

/** The annotations keel reads, each of its type (a hint that is not a boolean, a title that is not a string: left out). */
function annotations(raw: Record<string, unknown>): McpToolInfo["annotations"] {
  const out: NonNullable<McpToolInfo["annotations"]> = {};
  for (const hint of ["readOnlyHint", "destructiveHint", "openWorldHint"] as const) if (typeof raw[hint] === "boolean") out[hint] = raw[hint];
  if (typeof raw.title === "string") out.title = raw.title;
  return out;
}

/** A plain object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
