import { shownPath } from "../shown-path.js";

/** Longest line grep shows (characters); the rest is cut with `…`. */
const MAX_LINE_CHARS = 400;
/** Most context lines grep shows before and after each match. */
export const GREP_MAX_CONTEXT = 20;

/** What grep returns: matching lines (with context), the files with a match, or the count of matching lines per file. */
export type GrepMode = "content" | "files_with_matches" | "count";

/** One matching line. */
export interface GrepMatch {
  file: string;
  line: number;
  text: string;
}

/** How `GrepOutput` collects. */
export interface GrepOutputOptions {
  mode: GrepMode;
  /** Lines shown before and after each match (`content` only). */
  context: number;
  /** Most matching lines (`content`) or files (the other modes). */
  max: number;
  /** Hides secrets in a line before it is cut (a cut through one would show its start). */
  hide?: (text: string) => string;
}

/**
 * The output of one grep call, fed line by line: `content` prints `file:line: text` for a match and, with context,
 * `file-line- text` around it (groups that do not touch are separated by `--`, as in ripgrep); `files_with_matches`
 * prints each file with a match once (its scan stops at the first); `count` prints `file:N`. Stops (`more`) once `max`
 * is reached. Holds only what it will print.
 */
export class GrepOutput {
  readonly lines: string[] = [];
  readonly matches: GrepMatch[] = [];
  readonly files: { file: string; count: number }[] = [];
  more = false;

  constructor(private readonly opts: GrepOutputOptions) {}

  /** The line callback for one file (`scanLines`' `onLine`): false stops reading the file. */
  file(file: string, test: (line: string) => boolean): (text: string, lineNo: number) => boolean {
    const { mode, context, max } = this.opts;
    const name = shownPath(file, /:/);
    const before: { n: number; text: string }[] = [];
    let afterLeft = 0;
    let lastShown = 0;
    let count = 0;
    /** Adds one line (already cut); a group that does not touch the one before (in this file or another) follows `--`. */
    const show = (n: number, shown: string, sep: ":" | "-") => {
      if (context > 0 && this.lines.length > 0 && (lastShown === 0 || n > lastShown + 1)) this.lines.push("--");
      this.lines.push(`${name}${sep}${n}${sep} ${shown}`);
      lastShown = n;
    };
    return (text, lineNo) => {
      if (!test(text)) {
        if (mode !== "content" || context === 0) return true;
        if (afterLeft > 0) {
          afterLeft--;
          show(lineNo, this.cut(text), "-");
        } else {
          before.push({ n: lineNo, text });
          if (before.length > context) before.shift();
        }
        return true;
      }
      if (mode !== "content") {
        if (count === 0) {
          if (this.files.length >= max) {
            this.more = true;
            return false;
          }
          this.files.push({ file, count: 0 });
        }
        count++;
        this.files[this.files.length - 1]!.count = count;
        return mode === "count";
      }
      if (this.matches.length >= max) {
        this.more = true;
        return false;
      }
      for (const b of before) if (b.n > lastShown) show(b.n, this.cut(b.text), "-");
      before.length = 0;
      const shown = this.cut(text);
      this.matches.push({ file, line: lineNo, text: shown });
      show(lineNo, shown, ":");
      afterLeft = context;
      return true;
    };
  }

  /** The text grep returns, after the matches (`count` and `files_with_matches` render their lists here). */
  render(): string[] {
    if (this.opts.mode === "files_with_matches") return this.files.map((f) => shownPath(f.file));
    if (this.opts.mode === "count") return this.files.map((f) => `${shownPath(f.file, /:/)}:${f.count}`);
    return this.lines;
  }

  /** Whether nothing matched. */
  get empty(): boolean {
    return this.matches.length === 0 && this.files.length === 0;
  }

  private cut(raw: string): string {
    let line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.length > MAX_LINE_CHARS && this.opts.hide) line = this.opts.hide(line);
    return line.length > MAX_LINE_CHARS ? line.slice(0, MAX_LINE_CHARS) + "…" : line;
  }
}
