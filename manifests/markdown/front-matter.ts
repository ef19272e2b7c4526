import { parse } from "yaml";

/** A Markdown file split into its YAML front matter and its body. */
export interface FrontMatterDoc {
  /** The front matter's mapping ({} when there is none). */
  data: Record<string, unknown>;
  /** The text after the front matter. */
  body: string;
  /**
   * Set when the front matter is not valid YAML and was read as plain `key: value` lines instead
   * (how Claude Code reads it too: descriptions with unquoted `: ` are common); says why.
   */
  lenient?: string;
}

const OPEN = /^\uFEFF?---[ \t]*\r?\n/;
const CLOSE = /^(?:---|\.\.\.)[ \t]*$/m;

/**
 * Splits `---` front matter from a Markdown text and parses it with the `yaml` library (aliases
 * capped, so a hostile file cannot expand). Front matter that is not a YAML mapping is read as
 * `key: value` lines with `lenient` set; text without front matter has `data: {}`. Never throws.
 */
export function parseFrontMatter(text: string): FrontMatterDoc {
  const open = OPEN.exec(text);
  if (!open) return { data: {}, body: text.replace(/^\uFEFF/, "") };
  const rest = text.slice(open[0].length);
  const close = CLOSE.exec(rest);
  if (!close) return { data: {}, body: text.replace(/^\uFEFF/, ""), lenient: "the front matter has no closing --- line; the whole file is the body" };
  const yamlText = rest.slice(0, close.index);
  const body = rest.slice(close.index + close[0].length).replace(/^\r?\n/, "");
  try {
    const data: unknown = parse(yamlText, { maxAliasCount: 50, prettyErrors: false });
    if (data === null || data === undefined) return { data: {}, body };
    if (typeof data === "object" && !Array.isArray(data)) return { data: data as Record<string, unknown>, body };
    return { data: simpleLines(yamlText), body, lenient: "the front matter is not a mapping" };
  } catch (error) {
    const reason = (error as Error).message.split("\n")[0] ?? "invalid YAML";
    return { data: simpleLines(yamlText), body, lenient: `the front matter is not valid YAML (${reason})` };
  }
}

/** Top-level `key: value` lines (value up to the end of the line; indented lines continue the previous value). */
function simpleLines(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let last: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    const m = /^([A-Za-z_][\w-]*)\s*:\s?(.*)$/.exec(line);
    if (m) {
      last = m[1]!;
      if (last !== "__proto__") out[last] = unquote(m[2]!.trim());
    } else if (last && /^\s+\S/.test(line) && typeof out[last] === "string") out[last] = `${out[last] as string} ${line.trim()}`.trim();
  }
  return out;
}

function unquote(v: string): string {
  return v.length >= 2 && ((v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'"))) ? v.slice(1, -1) : v;
}

/** A front matter field that Claude Code allows as a comma-separated string or a list (`allowed-tools`, `tools`): as a list. */
export function listField(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value))
    return value
      .filter((v): v is string => typeof v === "string")
      .map((v) => v.trim())
      .filter(Boolean);
  if (typeof value === "string") return splitTopLevelCommas(value);
  return undefined;
}

/** Splits on commas outside parentheses (`Bash(git add:*), Read` → two entries). */
function splitTopLevelCommas(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of text) {
    if (ch === "(") depth++;
    else if (ch === ")") depth = Math.max(0, depth - 1);
    if (ch === "," && depth === 0) {
      out.push(cur);
      cur = "";
    } else cur += ch;
  }
  out.push(cur);
  return out.map((s) => s.trim()).filter(Boolean);
}

/** A front matter flag: YAML `true`, or the text `true` (any case) as the lenient reading leaves it. */
export function trueField(value: unknown): boolean {
  return value === true || (typeof value === "string" && value.trim().toLowerCase() === "true");
}
