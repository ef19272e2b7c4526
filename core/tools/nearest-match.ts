/** Line comparisons `nearestMatch` may make before it gives up (keeps a hostile file and `old_string` linear). */
const BUDGET = 2_000_000;

/** Where an `old_string` that does not occur exactly nearly does: 1-based lines of `text`, and how it differs. */
export interface NearMatch {
  fromLine: number;
  toLine: number;
  /** `whitespace`: the lines match once each is trimmed; `first-line`: only the first line was found (trimmed). */
  kind: "whitespace" | "first-line";
}

/**
 * The first place in `text` where `needle`'s lines match when the blanks around each line are ignored (indentation with
 * tabs instead of spaces, trailing spaces), else the first line of `text` equal to `needle`'s first non-blank line
 * (trimmed), else undefined. Bounded work: at most BUDGET line comparisons. Pure; never throws.
 */
export function nearestMatch(text: string, needle: string): NearMatch | undefined {
  const want = needle.split("\n").map((l) => l.trim());
  while (want.length > 0 && want[want.length - 1] === "") want.pop();
  let skip = 0;
  while (skip < want.length && want[skip] === "") skip++;
  if (skip === want.length) return undefined;
  const lines = text.split("\n").map((l) => l.trim());
  let firstLine: number | undefined;
  let budget = BUDGET;
  for (let i = 0; i + want.length - skip <= lines.length && budget > 0; i++) {
    budget--;
    if (lines[i] !== want[skip]) continue;
    firstLine ??= i;
    let k = skip + 1;
    for (; k < want.length && budget > 0; k++, budget--) if (lines[i + k - skip] !== want[k]) break;
    if (k === want.length) return { fromLine: i + 1, toLine: i + want.length - skip, kind: "whitespace" };
  }
  return firstLine === undefined ? undefined : { fromLine: firstLine + 1, toLine: firstLine + 1, kind: "first-line" };
}

/** The sentence edit_file adds to "not found" for a near match. */
export function nearMatchHint(near: NearMatch | undefined): string {
  if (near === undefined) return "";
  const at = near.fromLine === near.toLine ? `line ${near.fromLine}` : `lines ${near.fromLine}-${near.toLine}`;
  const window = `read_file with offset ${near.fromLine}, limit ${near.toLine - near.fromLine + 1}`;
  return near.kind === "whitespace"
    ? ` Nearest match: ${at}, which match it when the blanks at the start and end of each line are ignored (the indentation, tabs or trailing spaces differ); read them again (${window}) and copy them exactly.`
    : ` Its first line occurs at ${at} (blanks ignored), but the lines after it differ; read from there again (read_file with offset ${near.fromLine}) and copy the text exactly.`;
}
