import { ManifestError } from "./errors.js";

/**
 * The safe template renderer used by virtual tools and workflows. Grammar, in one pass:
 * `{{` → `{`, `}}` → `}`, `{path}` (dotted own-property path) → the value, anything else
 * (unbalanced braces, `{a[0]}`, `{a:>6}`, `{a!r}`) stays literal. Values are never expanded again.
 */

/** Outcome of looking up a dotted path. */
export interface PlaceholderLookup {
  found: boolean;
  value?: unknown;
}

/** Result of rendering: the text and the placeholder names that had no value (left literal). */
export interface RenderedTemplate {
  text: string;
  missing: string[];
}

const FORBIDDEN_SEGMENTS = new Set(["__proto__", "constructor", "prototype"]);
const PLACEHOLDER = /^[A-Za-z0-9_$-]+(?:\.[A-Za-z0-9_$-]+)*$/;

/**
 * Looks up `a.b.c` in `values` through own data properties of plain (non-array) objects only;
 * `__proto__`, `constructor`, `prototype` never match, getters are never invoked. Never throws.
 */
export function lookupPlaceholder(values: Record<string, unknown>, dottedPath: string): PlaceholderLookup {
  if (!PLACEHOLDER.test(dottedPath)) return { found: false };
  let current: unknown = values;
  for (const segment of dottedPath.split(".")) {
    if (FORBIDDEN_SEGMENTS.has(segment)) return { found: false };
    if (current === null || typeof current !== "object" || Array.isArray(current)) return { found: false };
    const descriptor = Object.getOwnPropertyDescriptor(current, segment);
    if (!descriptor || !("value" in descriptor)) return { found: false };
    current = descriptor.value;
  }
  if (current === undefined || typeof current === "function" || typeof current === "symbol") return { found: false };
  return { found: true, value: current };
}

/** Text of a value: strings as is, numbers/booleans/null as JSON text, objects and arrays as JSON. Never throws. */
export function formatTemplateValue(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "bigint") return value.toString();
  try {
    const json = JSON.stringify(value);
    return json === undefined ? "" : json;
  } catch {
    return "";
  }
}

/**
 * Longest text a template renders to, in characters (4 Mi): far more than any tool result or command
 * line needs, far less than what a hostile template could make of a short value (`{a}` written 300,000
 * times with a 2,000-character argument is 600 million characters, a gigabyte of memory per call).
 */
export const MAX_RENDERED_CHARS = 4 * 1024 * 1024;

/**
 * Options of `renderTemplate`: `format` turns each found value (of placeholder `name`) into the text inserted (default
 * `formatTemplateValue`); `literal` is the text rendered since the previous value (or the start): a caller following
 * the text (a shell lexer) is fed it piece by piece, never the whole text again; `maxChars` caps the text (default MAX_RENDERED_CHARS).
 */
export interface RenderTemplateOptions {
  format?: (value: unknown, literal: string, name: string) => string;
  maxChars?: number;
}

/**
 * Renders `template` with `values` in a single pass, in time linear in the template and the text
 * rendered; a missing key stays literal (`{missing}`). Only substituted values go through
 * `options.format`; literal text is copied as is. Throws ManifestError (before building the text)
 * when the text would be longer than `options.maxChars`; nothing else (unless `format` throws).
 */
export function renderTemplate(template: string, values: Record<string, unknown>, options: RenderTemplateOptions = {}): RenderedTemplate {
  const format = options.format ?? formatTemplateValue;
  const maxChars = options.maxChars ?? MAX_RENDERED_CHARS;
  const missing = new Set<string>();
  // The text rendered up to the last value, and the literal text since.
  let text = "";
  let literal = "";
  let i = 0;
  const n = template.length;
  // The next `}` and `{` at or after a position, found once and reused while ahead: scanning afresh
  // at every `{` is quadratic in a template of many `{` and no `}`.
  let close = -2;
  let open = -2;
  while (i < n) {
    if (text.length + literal.length > maxChars) throw tooLong(maxChars);
    const ch = template[i]!;
    if (ch === "{" && template[i + 1] === "{") {
      literal += "{";
      i += 2;
    } else if (ch === "}" && template[i + 1] === "}") {
      literal += "}";
      i += 2;
    } else if (ch === "{") {
      if (close !== -1 && close <= i) close = template.indexOf("}", i + 1);
      if (open !== -1 && open <= i) open = template.indexOf("{", i + 1);
      const name = close > i && (open === -1 || open > close) ? template.slice(i + 1, close) : undefined;
      if (name === undefined || !PLACEHOLDER.test(name)) {
        literal += "{";
        i += 1;
        continue;
      }
      const hit = lookupPlaceholder(values, name);
      if (hit.found) {
        const value = format(hit.value, literal, name);
        if (text.length + literal.length + value.length > maxChars) throw tooLong(maxChars);
        text += literal + value;
        literal = "";
      } else {
        literal += `{${name}}`;
        missing.add(name);
      }
      i = close + 1;
    } else {
      literal += ch;
      i += 1;
    }
  }
  text += literal;
  if (text.length > maxChars) throw tooLong(maxChars);
  return { text, missing: [...missing] };
}

function tooLong(maxChars: number): ManifestError {
  return new ManifestError(
    `The template renders to more than ${maxChars} characters (its placeholders repeat long values), more than keel renders; it was not used. Repeat placeholders less often in the template, or pass shorter values.`,
  );
}
