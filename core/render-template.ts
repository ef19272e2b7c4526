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

/** Options of `renderTemplate`: `format` turns each found value (of placeholder `name`) into the text inserted (default `formatTemplateValue`); `before` is the text rendered so far. */
export interface RenderTemplateOptions {
  format?: (value: unknown, before: string, name: string) => string;
}

/**
 * Renders `template` with `values` in a single pass; a missing key stays literal (`{missing}`).
 * Only substituted values go through `options.format`; literal text is copied as is. Never throws
 * (unless `format` does).
 */
export function renderTemplate(template: string, values: Record<string, unknown>, options: RenderTemplateOptions = {}): RenderedTemplate {
  const format = options.format ?? formatTemplateValue;
  const missing: string[] = [];
  let text = "";
  let i = 0;
  const n = template.length;
  while (i < n) {
    const ch = template[i]!;
    if (ch === "{" && template[i + 1] === "{") {
      text += "{";
      i += 2;
    } else if (ch === "}" && template[i + 1] === "}") {
      text += "}";
      i += 2;
    } else if (ch === "{") {
      const close = template.indexOf("}", i + 1);
      const open = template.indexOf("{", i + 1);
      const name = close > i && (open === -1 || open > close) ? template.slice(i + 1, close) : undefined;
      if (name === undefined || !PLACEHOLDER.test(name)) {
        text += "{";
        i += 1;
        continue;
      }
      const hit = lookupPlaceholder(values, name);
      if (hit.found) text += format(hit.value, text, name);
      else {
        text += `{${name}}`;
        if (!missing.includes(name)) missing.push(name);
      }
      i = close + 1;
    } else {
      text += ch;
      i += 1;
    }
  }
  return { text, missing };
}
