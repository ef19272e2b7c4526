/** The most alternatives one pattern's braces may expand to; more is matched another way (see glob-matcher.ts). */
export const MAX_BRACE_EXPANSIONS = 256;

/**
 * Expands the `{a,b}` groups of a glob (nested, escape-aware) into brace-free patterns, in order.
 * Undefined when the braces are not plain comma lists (`{a}`, `{1..3}`, unbalanced, `**` inside) or expand to
 * more than MAX_BRACE_EXPANSIONS patterns: expansion stops as soon as the limit is passed, so a
 * pattern like `{a,b}{a,b}…` costs bounded work. Pure; never throws.
 */
export function expandBraces(pattern: string): string[] | undefined {
  const out: string[] = [];
  return expandInto(pattern, out) ? out : undefined;
}

function expandInto(pattern: string, out: string[]): boolean {
  const open = findUnescaped(pattern, "{", 0);
  if (open === -1) {
    if (findUnescaped(pattern, "}", 0) !== -1 || out.length >= MAX_BRACE_EXPANSIONS) return false;
    out.push(pattern);
    return true;
  }
  const group = splitGroup(pattern, open);
  // picomatch's `**` inside braces is not the globstar it is outside (`{**/a,b}` does not match `a`): left to the fallback.
  if (!group || group.alternatives.length < 2 || group.alternatives.some((a) => a.includes("**")) || findUnescaped(pattern.slice(0, open), "}", 0) !== -1)
    return false;
  const rest = pattern.slice(group.end + 1);
  for (const alt of group.alternatives) if (!expandInto(pattern.slice(0, open) + alt + rest, out)) return false;
  return true;
}

/** The top-level comma-separated alternatives of the group opening at `open`, and where it closes. */
function splitGroup(pattern: string, open: number): { alternatives: string[]; end: number } | undefined {
  const alternatives: string[] = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open + 1; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") i++;
    else if (c === "{") depth++;
    else if (c === "}" && depth > 0) depth--;
    else if (c === "}") {
      alternatives.push(pattern.slice(start, i));
      return { alternatives, end: i };
    } else if (c === "," && depth === 0) {
      alternatives.push(pattern.slice(start, i));
      start = i + 1;
    }
  }
  return undefined;
}

/** The index of the first `ch` at or after `from` that no backslash escapes, or -1. */
function findUnescaped(text: string, ch: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === ch) return i;
  }
  return -1;
}
