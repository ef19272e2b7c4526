import { formatTemplateValue, lookupPlaceholder, ShellLexer } from "../../core/index.js";
import { RenderBudget } from "./render-budget.js";

/** What later steps see of an earlier one under `steps.<key>`. */
export interface StepValue {
  ok: boolean;
  /** Text result: a tool's content, a shell step's stdout (trailing newline removed), a prompt's answer. */
  content: string;
  data: unknown;
  code: string;
  skipped?: boolean;
}

/** The values templates are rendered with: arguments at the top level, plus `steps`, `workflow`, `run`, `worktree`. */
export type TemplateValues = Record<string, unknown> & { steps: Record<string, StepValue> };

const SINGLE = /^\{([A-Za-z0-9_$-]+(?:\.[A-Za-z0-9_$-]+)*)\}$/;

/** A rendered value and the placeholders that had no value (left literal). */
export interface RenderedValue<T = unknown> {
  value: T;
  missing: string[];
}

/**
 * Renders every string inside `value` (objects and arrays recursively, keys untouched) with the
 * shared renderer. A string that is exactly one placeholder keeps the referenced value's JSON
 * type (`"{count}"` → 3). Unknown placeholders stay literal and are returned in `missing`. Everything rendered
 * counts against `budget` (one per step: see RenderBudget); throws its ManifestError past it, nothing else.
 */
export function renderDeep(value: unknown, values: TemplateValues, budget = new RenderBudget()): RenderedValue {
  const missing = new Set<string>();
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") {
      const single = SINGLE.exec(v);
      if (single) {
        const hit = lookupPlaceholder(values, single[1]!);
        if (hit.found) {
          budget.take(hit.value);
          return structuredClone(hit.value);
        }
      }
      const r = budget.render(v, values);
      r.missing.forEach((m) => missing.add(m));
      return r.text;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  const out = walk(value);
  return { value: out, missing: [...missing] };
}

/** Renders one string to text (a lone placeholder's non-string value becomes its JSON text), within `budget` as renderDeep. */
export function renderText(template: string, values: TemplateValues, budget = new RenderBudget()): RenderedValue<string> {
  const r = renderDeep(template, values, budget);
  return { value: typeof r.value === "string" ? r.value : formatTemplateValue(r.value), missing: r.missing };
}

/** A rendered shell command line, and the placeholders where no quoting keeps a value literal (the step must not run). */
export interface RenderedShellCommand extends RenderedValue<string> {
  unsafe: string[];
}

/**
 * Renders a `run` step's command line so that every substituted value stays literal text, quoted for
 * where it stands: outside quotes as one single-quoted word (`ann; touch x` → `'ann; touch x'`, with
 * `''` first after a `$`, which would make it `$'…'`), inside '…' with each `'` written `'\''`, inside
 * "…" with `\ $ \` "` escaped. A placeholder after a `\`, inside `` `…` ``, `${…}`, `$((…))`, `$'…'`, a
 * comment or a here-document is named in `unsafe`: no quoting is sure to hold there. Literal text is kept as is.
 * Counts against `budget` as renderDeep (throws its ManifestError past it).
 */
export function renderShellCommand(template: string, values: TemplateValues, budget = new RenderBudget()): RenderedShellCommand {
  const lexer = new ShellLexer();
  const unsafe: string[] = [];
  const format = (v: unknown, literal: string, name: string): string => {
    lexer.feed(literal);
    const out = lexer.insert(formatTemplateValue(v));
    if (out.unsafe && !unsafe.includes(name)) unsafe.push(name);
    return out.text;
  };
  const r = budget.render(template, values, { format });
  return { value: r.text, missing: r.missing, unsafe };
}

/** `text` as one POSIX shell word: wrapped in single quotes, each `'` written as `'\''`. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * Evaluates a step's `if`: a reference (`steps.check.ok`, `{dry_run}`, `!steps.lint.ok`) that is
 * truthy. Missing values, `false`, `0`, `""`, `null`, empty lists and the strings "false", "0", "no"
 * are falsy. Returns whether to run and whether the reference was found. Never throws.
 */
export function evaluateCondition(expr: string, values: TemplateValues): { run: boolean; found: boolean } {
  let ref = expr.trim();
  let negate = false;
  while (ref.startsWith("!")) {
    negate = !negate;
    ref = ref.slice(1).trim();
  }
  const braced = /^\{(.*)\}$/.exec(ref);
  if (braced) ref = braced[1]!.trim();
  const hit = lookupPlaceholder(values, ref);
  const truthy = hit.found && isTruthy(hit.value);
  return { run: negate ? !truthy : truthy, found: hit.found };
}

function isTruthy(v: unknown): boolean {
  if (typeof v === "string") return !["", "false", "0", "no"].includes(v.trim().toLowerCase());
  if (Array.isArray(v)) return v.length > 0;
  return Boolean(v);
}
