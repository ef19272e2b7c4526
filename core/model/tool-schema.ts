/** Keywords strict providers reject; removed everywhere in a tool schema. */
const UNSUPPORTED = new Set([
  "$schema",
  "$id",
  "$comment",
  "$anchor",
  "examples",
  "format",
  "patternProperties",
  "if",
  "then",
  "else",
  "not",
  "contentEncoding",
  "contentMediaType",
  "deprecated",
  "readOnly",
  "writeOnly",
  "unevaluatedProperties",
  "dependentSchemas",
  "dependentRequired",
]);
const NESTED_MAPS = ["properties", "$defs", "definitions"];
const NESTED_ONE = ["items", "additionalProperties"];
const NESTED_LIST = ["anyOf", "oneOf", "allOf", "prefixItems"];

/**
 * Normalises a tool input schema so strict providers accept it: an object root with
 * `properties`, `required` limited to declared properties, unsupported keywords removed
 * (recursively). Never throws; returns a new object.
 */
export function normalizeToolSchema(schema: unknown): Record<string, unknown> {
  const root = isObject(schema) ? clean(schema) : {};
  if (root.type !== "object") {
    if (root.type === undefined && !root.anyOf && !root.oneOf) root.type = "object";
    else return { type: "object", properties: {}, additionalProperties: true };
  }
  if (!isObject(root.properties)) root.properties = {};
  return root;
}

function clean(node: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    // `__proto__` is no keyword: as a key of `out` it would set its prototype (a server's schema could give it a `type`).
    if (UNSUPPORTED.has(key) || key === "__proto__") continue;
    if (NESTED_MAPS.includes(key) && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isObject(v) ? clean(v) : v]));
    } else if (NESTED_ONE.includes(key) && isObject(value)) out[key] = clean(value);
    else if (NESTED_LIST.includes(key) && Array.isArray(value)) out[key] = value.map((v) => (isObject(v) ? clean(v) : v));
    else out[key] = value;
  }
  if (out.type === "object" && !isObject(out.properties) && out.additionalProperties === undefined) out.properties = {};
  if (Array.isArray(out.required)) {
    const props = isObject(out.properties) ? out.properties : {};
    out.required = (out.required as unknown[]).filter((r) => typeof r === "string" && Object.hasOwn(props, r));
    if ((out.required as unknown[]).length === 0) delete out.required;
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
