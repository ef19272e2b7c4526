/** One single-character-or-star element of a path segment pattern. */
type Token = { kind: "lit"; code: number } | { kind: "any" } | { kind: "star" } | { kind: "class"; negate: boolean; ranges: number[] };

/** A pattern segment: `**` alone (any number of path segments), one segment `**` could cross, or a sequence of tokens. */
type Segment = "globstar" | "crossable" | Token[];

/** Options a linear glob understands (picomatch's names and meanings). */
export interface LinearGlobOptions {
  /** `*`, `?` and `**` also match names starting with a dot (never `.` or `..`). */
  dot?: boolean;
}

/**
 * A brace-free glob (`*`, `**`, `?`, `[a-z]`, `[^x]`, `\` escapes) compiled for matching in time
 * O(pattern × input), with no regular expression and no backtracking: path segments are matched by
 * a set-of-states simulation over the pattern's segments, each segment by one over its tokens (a
 * segment of literals and stars only, the common case, by placing its literal runs leftmost).
 * Semantics are picomatch's for normalized relative paths and names (a test checks them side by
 * side): `*` and `?` stay within a segment, `**` alone in a segment spans segments (`a/**` also
 * matches `a`), and without `dot` a segment starting with `*` or `?` never matches a name starting
 * with a dot. One deliberate difference: `*.*` matches `a.` (an empty extension) as in bash, gitignore
 * and minimatch, where picomatch, only for a pattern starting with `*.`, does not. Undefined for syntax outside this subset (extglobs, `!` negation, `[!…]`, POSIX classes,
 * unescaped parentheses, `|`), which the caller matches another way. Pure; never throws.
 */
export function compileLinearGlob(pattern: string, options: LinearGlobOptions = {}): ((input: string) => boolean) | undefined {
  const body = pattern.startsWith("./") ? pattern.slice(2) : pattern;
  // An escaped `\(` is a literal (a folder name such as `app (copy)`, escaped by its rules' scope), as in picomatch.
  if (body.startsWith("!") || /[()|]/.test(body.replace(/\\./g, ""))) return undefined;
  const segments: Segment[] = [];
  // `**/**` is one `**`.
  const parts = body.split("/").filter((part, i, all) => part !== "**" || all[i - 1] !== "**");
  for (const [index, part] of parts.entries()) {
    if (part === "**") {
      // picomatch: a trailing `/**` matches the folder itself, except after a segment ending in `*` (`*/**` needs one more segment).
      const prev = segments[segments.length - 1];
      const last = Array.isArray(prev) ? prev[prev.length - 1] : undefined;
      segments.push(...(last?.kind === "star" && index === parts.length - 1 ? (["crossable", "globstar"] as const) : (["globstar"] as const)));
    } else {
      // `**x` (globstar glued to text) crosses segments in picomatch in ways it does not for `x**`: left to the fallback.
      const tokens = part.startsWith("**") ? undefined : tokenize(part);
      if (!tokens) return undefined;
      segments.push(tokens);
    }
  }
  const dot = options.dot === true;
  // Segments of literals and stars only (most of them: `*.ts`, `src`) are matched without a state set.
  const runs = segments.map((seg) => (Array.isArray(seg) ? starRuns(seg) : undefined));
  return (input) => matchPath(segments, runs, input.split("/"), dot);
}

/** The tokens of one segment, or undefined for unsupported syntax. Runs of stars are one star. */
function tokenize(part: string): Token[] | undefined {
  const tokens: Token[] = [];
  for (let i = 0; i < part.length; i++) {
    const c = part[i]!;
    if (c === "\\") {
      if (i + 1 >= part.length) return undefined;
      tokens.push({ kind: "lit", code: part.charCodeAt(++i) });
    } else if (c === "*") {
      if (tokens[tokens.length - 1]?.kind !== "star") tokens.push({ kind: "star" });
    } else if (c === "?") tokens.push({ kind: "any" });
    else if (c === "[") {
      const end = part.indexOf("]", i + 2);
      const inner = part.slice(i + 1, end);
      if (end === -1 || /[[\\!]/.test(inner) || inner.startsWith("^]")) return undefined;
      tokens.push(classToken(inner));
      i = end;
    } else if (c === "]" || c === "{" || c === "}") return undefined;
    else tokens.push({ kind: "lit", code: part.charCodeAt(i) });
  }
  return tokens;
}

/** `a-z0_` (optionally after `^`) as inclusive code ranges. */
function classToken(inner: string): Token {
  const negate = inner.startsWith("^");
  const body = negate ? inner.slice(1) : inner;
  const ranges: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const lo = body.charCodeAt(i);
    if (body[i + 1] === "-" && i + 2 < body.length) {
      ranges.push(lo, body.charCodeAt(i + 2));
      i += 2;
    } else ranges.push(lo, lo);
  }
  return { kind: "class", negate, ranges };
}

/** Whether the path segments match: states are pattern segment indices; `**` may stay or be skipped. */
function matchPath(segments: Segment[], runs: (string[] | undefined)[], parts: string[], dot: boolean): boolean {
  let active = new Uint8Array(segments.length + 1);
  let next = new Uint8Array(segments.length + 1);
  active[0] = 1;
  skipGlobstars(segments, active);
  for (const part of parts) {
    next.fill(0);
    let any = false;
    for (let i = 0; i < segments.length; i++) {
      if (!active[i]) continue;
      const seg = segments[i]!;
      if (seg === "globstar" || seg === "crossable") {
        if (!crossable(part, dot)) continue;
        next[seg === "globstar" ? i : i + 1] = 1;
      } else if (matchSegment(seg, runs[i], part, dot)) next[i + 1] = 1;
      else continue;
      any = true;
    }
    if (!any) return false;
    skipGlobstars(segments, next);
    [active, next] = [next, active];
  }
  return active[segments.length] === 1;
}

/** Whether `**` may cross this path segment: never `.` or `..`, and without `dot` no name starting with a dot. */
function crossable(part: string, dot: boolean): boolean {
  return dot ? part !== "." && part !== ".." : !part.startsWith(".");
}

/** Marks the state after each active `**` active too (it may match no segment). */
function skipGlobstars(segments: Segment[], active: Uint8Array): void {
  for (let i = 0; i < segments.length; i++) if (active[i] && segments[i] === "globstar") active[i + 1] = 1;
}

/** Whether one path segment matches a token sequence, including picomatch's rules for a leading wildcard. */
function matchSegment(tokens: Token[], runs: string[] | undefined, text: string, dot: boolean): boolean {
  const first = tokens[0]?.kind;
  if (first === "star" && (text === "" || (dot && (text === "." || text === "..")))) return false;
  if (!dot && (first === "star" || first === "any") && text.startsWith(".")) return false;
  // picomatch: `.*` at a segment start never matches `.` or `..`.
  if (first === "lit" && tokens[1]?.kind === "star" && (tokens[0] as { code: number }).code === 46 && (text === "." || text === "..")) return false;
  if (runs) return matchRuns(runs, text);
  let active = new Uint8Array(tokens.length + 1);
  let next = new Uint8Array(tokens.length + 1);
  active[0] = 1;
  skipStars(tokens, active);
  for (let p = 0; p < text.length; p++) {
    const code = text.charCodeAt(p);
    next.fill(0);
    let any = false;
    for (let i = 0; i < tokens.length; i++) {
      if (!active[i]) continue;
      const t = tokens[i]!;
      if (t.kind === "star") next[i] = 1;
      else if (t.kind === "any" || (t.kind === "lit" ? t.code === code : inClass(t.ranges, code) !== t.negate)) next[i + 1] = 1;
      else continue;
      any = true;
    }
    if (!any) return false;
    skipStars(tokens, next);
    [active, next] = [next, active];
  }
  return active[tokens.length] === 1;
}

/** The literal runs between the stars of a segment of literals and stars only (`*.ts` → `["", ".ts"]`), or undefined when it has `?` or a class. */
function starRuns(tokens: Token[]): string[] | undefined {
  const runs = [""];
  for (const t of tokens) {
    if (t.kind === "star") runs.push("");
    else if (t.kind === "lit") runs[runs.length - 1] += String.fromCharCode(t.code);
    else return undefined;
  }
  return runs;
}

/**
 * Whether the text matches a segment given as its star runs: it must start with the run before the
 * first star and end with the one after the last, and each run in between is placed at its leftmost
 * occurrence after the previous one (leftmost is never worse, so nothing is retried). Time
 * O(pattern × text) at worst, through `indexOf`.
 */
function matchRuns(runs: string[], text: string): boolean {
  const first = runs[0]!;
  const last = runs[runs.length - 1]!;
  if (runs.length === 1) return text === first;
  const end = text.length - last.length;
  if (end < first.length || !text.startsWith(first) || !text.endsWith(last)) return false;
  let at = first.length;
  for (let i = 1; i < runs.length - 1; i++) {
    const found = text.indexOf(runs[i]!, at);
    if (found === -1 || found + runs[i]!.length > end) return false;
    at = found + runs[i]!.length;
  }
  return true;
}

function skipStars(tokens: Token[], active: Uint8Array): void {
  for (let i = 0; i < tokens.length; i++) if (active[i] && tokens[i]!.kind === "star") active[i + 1] = 1;
}

function inClass(ranges: number[], code: number): boolean {
  for (let i = 0; i < ranges.length; i += 2) if (code >= ranges[i]! && code <= ranges[i + 1]!) return true;
  return false;
}
