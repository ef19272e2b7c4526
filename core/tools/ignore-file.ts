import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, statSync } from "node:fs";
import { compileLinearGlob } from "../glob/linear-glob.js";

/** Most bytes of one ignore file read (the rest is not applied): no real `.gitignore` is this large. */
export const IGNORE_FILE_MAX_BYTES = 256 * 1024;

/** Most patterns of one ignore file applied (the rest are not): each costs every walked path a match. */
export const IGNORE_FILE_MAX_PATTERNS = 1000;

/** One line of an ignore file, compiled. */
export interface IgnorePattern {
  negate: boolean;
  /** A trailing `/`: matches folders only. */
  dirOnly: boolean;
  /** No `/` inside: matched against the name alone, at any depth below the file's folder. */
  byName: boolean;
  match: (path: string) => boolean;
}

/** Whether `path` is a regular file (through a link only when `followLink`). */
export function regularFile(path: string, followLink: boolean): boolean {
  try {
    return (followLink ? statSync : lstatSync)(path, { throwIfNoEntry: false })?.isFile() === true;
  } catch {
    return false;
  }
}

/** The compiled patterns of an ignore file; none when it is missing, a link (unless `followLink`), not a regular file or unreadable. */
export function ignoreFile(path: string, followLink = false, max = IGNORE_FILE_MAX_PATTERNS): IgnorePattern[] {
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO named `.gitignore` must not block the walk.
    fd = openSync(path, constants.O_RDONLY | (followLink ? 0 : constants.O_NOFOLLOW) | constants.O_NONBLOCK);
  } catch {
    return [];
  }
  try {
    if (!fstatSync(fd).isFile()) return [];
    const buf = Buffer.alloc(IGNORE_FILE_MAX_BYTES);
    let len = 0;
    for (let n = 1; n > 0 && len < buf.length; len += n) n = readSync(fd, buf, len, buf.length - len, len);
    return parseIgnoreText(buf.subarray(0, len).toString("utf8"), max);
  } catch {
    return [];
  } finally {
    closeSync(fd);
  }
}

/** The patterns of ignore-file text (gitignore syntax), lines that cannot be matched in linear time left out. Pure. */
export function parseIgnoreText(text: string, max = IGNORE_FILE_MAX_PATTERNS): IgnorePattern[] {
  const out: IgnorePattern[] = [];
  for (const raw of text.replace(/^\ufeff/, "").split("\n")) {
    const pattern = parseLine(raw.endsWith("\r") ? raw.slice(0, -1) : raw);
    if (pattern) out.push(pattern);
    if (out.length >= max) break;
  }
  return out;
}

function parseLine(raw: string): IgnorePattern | undefined {
  let line = withoutTrailingSpaces(raw);
  if (line === "" || line.startsWith("#")) return undefined;
  const negate = line.startsWith("!");
  if (negate) line = line.slice(1);
  const dirOnly = line.endsWith("/") && !line.endsWith("\\/");
  if (dirOnly) line = line.slice(0, -1);
  if (line === "") return undefined;
  const byName = !line.includes("/");
  if (line.startsWith("/")) line = line.slice(1);
  const glob = toLinearGlob(line);
  const match = glob === undefined ? undefined : compileLinearGlob(glob, { dot: true });
  return match ? { negate, dirOnly, byName, match } : undefined;
}

/**
 * `line` without its trailing spaces, but for one escaped with a backslash (`a\ ` keeps `a\ `), as git reads them.
 * A scan from the end: a committed line of 256 KiB of spaces and one other character costs one pass (a regex
 * `(?<!\\) +$` tries every space as a start, quadratic: about a minute for one such file, the walk frozen).
 */
function withoutTrailingSpaces(line: string): string {
  let end = line.length;
  while (end > 0 && line[end - 1] === " ") end--;
  if (end < line.length && end > 0 && line[end - 1] === "\\") end++;
  return line.slice(0, end);
}

/**
 * A gitignore pattern (without its `!`, leading and trailing `/`) in the linear glob's syntax: characters git
 * takes literally but picomatch does not (`{}()|+@!`) escaped, `[!a]` as `[^a]`, `**` glued to text as `*`
 * (as git reads it), and a trailing `/**` as `/**` + `/*` (git's `a/**` matches what is inside `a`, not `a`).
 */
function toLinearGlob(pattern: string): string | undefined {
  const segments = pattern.split("/").map((seg) => {
    if (seg === "**") return seg;
    let out = "";
    // past the last `]` no `[` opens a class: not searched for again (a segment of `[`s stays linear)
    const lastClose = seg.lastIndexOf("]");
    for (let i = 0; i < seg.length; i++) {
      const c = seg[i]!;
      if (c === "\\") {
        if (i + 1 < seg.length) out += "\\" + seg[++i];
      } else if (c === "[") {
        const end = i + 2 > lastClose ? -1 : seg.indexOf("]", i + 2);
        if (end === -1) out += "\\[";
        else {
          const inner = seg.slice(i + 1, end);
          out += "[" + (inner.startsWith("!") ? "^" + inner.slice(1) : inner) + "]";
          i = end;
        }
      } else if (c === "*") {
        if (!out.endsWith("*") || out.endsWith("\\*")) out += "*";
      } else out += /[{}()|+@!\]]/.test(c) ? "\\" + c : c;
    }
    return out;
  });
  if (segments.some((s) => s === "")) return undefined;
  if (segments[segments.length - 1] === "**" && segments.length > 1) segments.push("*");
  return segments.join("/");
}
