import { isPlainValue, redactSecrets, secretRedactor } from "../../core/index.js";
import type { McpToolInfo } from "./tool-cache.js";

/**
 * A server's tools with its `secrets` redacted (`***`) in the text written for people and the model: each tool's
 * `title`, `description` and `annotations.title` (a server that names the database it reaches, `Runs SQL against
 * postgres://app:pw@db/app`, would otherwise put the password before the model and into the tool cache under
 * `.keel/`), and the text and `enum`/`const` values in its input and output schemas (see `schemaText`). Names, and
 * the rest of what a schema validates, stay as listed: a tool is called by its name and with its schema's keys. Returns the same array when there are
 * no secrets. Never throws.
 */
export function redactToolInfos(tools: McpToolInfo[], secrets: readonly string[]): McpToolInfo[] {
  const kept = listingSecrets(secrets);
  if (!kept.length) return tools;
  const redact = secretRedactor(kept);
  const text = (s: string | undefined) => (typeof s === "string" ? redact(s) : s);
  return tools.map((t) => ({
    ...t,
    ...(t.title !== undefined ? { title: text(t.title) } : {}),
    ...(t.description !== undefined ? { description: text(t.description) } : {}),
    ...(t.annotations?.title !== undefined ? { annotations: { ...t.annotations, title: text(t.annotations.title) } } : {}),
    ...(t.inputSchema !== undefined ? { inputSchema: schemaText(t.inputSchema, redact) as McpToolInfo["inputSchema"] } : {}),
    ...(t.outputSchema !== undefined ? { outputSchema: schemaText(t.outputSchema, redact) as McpToolInfo["outputSchema"] } : {}),
  }));
}

/** Schema keywords whose string is text for people and the model (redacted). */
const TEXT_KEYWORDS = new Set(["description", "title", "$comment"]);
/** Schema keywords that only suggest values (left out when one holds a secret: the server applies its own default); `example` is OpenAPI's. */
const HINT_KEYWORDS = new Set(["default", "examples", "example"]);
/** Schema keywords whose value maps names (property names, definition names) to schemas. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
/** Schema keywords whose value is a schema or a list of schemas. */
const SCHEMA_KEYWORDS = new Set(
  (
    "items prefixItems additionalItems contains additionalProperties unevaluatedProperties unevaluatedItems propertyNames " +
    "not if then else allOf anyOf oneOf contentSchema dependencies"
  ).split(" "),
);
/** Schema keywords whose strings a call is validated against or that name properties and schemas: kept as listed. */
const STRUCTURAL_KEYWORDS = new Set("type format pattern required dependentRequired $ref $id $schema $anchor $dynamicRef $dynamicAnchor".split(" "));

/**
 * A JSON Schema with the secrets redacted where it talks (`description`, `title`, `$comment`, at any depth: a
 * parameter described as `SQL for postgres://app:pw@db/app` put the password before the model and into the tool
 * cache), in its `enum` and `const` values (a server listing its token as the one allowed value would show it to the
 * model: the value shows as `***`, which the model may send and the server then refuses) and in keywords keel does not
 * know (`x-hint`, `markdownDescription`), and its `default`/`examples`/`example` left out when they hold a secret. The
 * rest of what a call is validated against stays: property names, types, formats, patterns. Never throws.
 */
function schemaText(schema: unknown, redact: (text: string) => string): unknown {
  if (Array.isArray(schema)) return schema.map((s) => schemaText(s, redact));
  if (schema === null || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (TEXT_KEYWORDS.has(key) && typeof value === "string") out[key] = redact(value);
    else if (HINT_KEYWORDS.has(key)) {
      if (!holdsSecret(value, redact)) out[key] = value;
    } else if (SCHEMA_MAPS.has(key) && value !== null && typeof value === "object" && !Array.isArray(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, schemaText(s, redact)]));
    else if (key === "enum") out[key] = Array.isArray(value) ? distinct(value.map((v) => redactValue(v, redact))) : redactValue(value, redact);
    else if (key === "const") out[key] = redactValue(value, redact);
    else if (SCHEMA_KEYWORDS.has(key)) out[key] = schemaText(value, redact);
    else if (STRUCTURAL_KEYWORDS.has(key)) out[key] = value;
    // Any other keyword (`x-hint`, `markdownDescription`, `errorMessage`) is text for people and the model too.
    else out[key] = redactValue(value, redact);
  }
  return out;
}

/** `value` (a JSON value: an `enum` entry, a `const`) with the secrets redacted in its strings and keys. */
function redactValue(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) return value.map((v) => redactValue(v, redact));
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [redact(k), redactValue(v, redact)]));
}

/** `values` without repeats (two secrets both shown as `***`: an `enum` lists each value once). */
function distinct(values: unknown[]): unknown[] {
  const seen = new Set<string>();
  return values.filter((v) => {
    const key = JSON.stringify(v) ?? "";
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** True when a string in `value` has a secret in it. */
function holdsSecret(value: unknown, redact: (text: string) => string): boolean {
  if (typeof value === "string") return redact(value) !== value;
  if (Array.isArray(value)) return value.some((v) => holdsSecret(v, redact));
  return value !== null && typeof value === "object" && Object.entries(value).some(([k, v]) => holdsSecret(k, redact) || holdsSecret(v, redact));
}

/** A server's `instructions` with its `secrets` redacted (plain words and numbers left, see `listingSecrets`); undefined stays undefined. Never throws. */
export function redactInstructions(instructions: string | undefined, secrets: readonly string[]): string | undefined {
  return typeof instructions === "string" ? redactSecrets(instructions, listingSecrets(secrets)) : instructions;
}

/**
 * The secrets redacted in what a server says about itself (instructions, tool text, schemas): every one but plain
 * words and numbers (one word of letters, or digits only). A server's config substitutes `${LOG_LEVEL}` (`info`), `${APP_ENV}` (`production`) or
 * `${PORT}` (`3000`) as readily as a token, and `***` in place of every "info" in its tool descriptions would
 * garble what the model reads, while a credential (a token, a URL with a password, a key) is never a plain word.
 * Errors, logs and stderr still redact them all.
 */
function listingSecrets(secrets: readonly string[]): readonly string[] {
  return secrets.some(isPlainValue) ? secrets.filter((s) => !isPlainValue(s)) : secrets;
}
