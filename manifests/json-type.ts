/** The JSON type of a parsed value for messages: "null", "array", "object", "string", "number" or "boolean". */
export function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}
