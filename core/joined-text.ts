import { PieceMap, type Range } from "./secret-ranges.js";

/** A text with its line breaks taken out, and the way back to the text's own positions. */
export interface JoinedText {
  readonly text: string;
  /** The stretch of the original text that the joined text's `[start, end)` comes from, breaks included. */
  place(start: number, end: number): Range;
}

/**
 * The length of the line break at `i` in `text`, or 0: as written (`\n`, `\r\n`) or escaped, once or more (`\n`,
 * `\\n`, `\r\n`: a result's data is redacted as its JSON, where a file's `\n` escape, as in a JSON or `.env` file,
 * is `\\n`), with the blanks that indent the next line (a YAML block scalar, an indented PEM block).
 */
function breakAt(text: string, i: number): number {
  let j = i;
  const c = text.charCodeAt(j);
  if (c === 13 && text.charCodeAt(j + 1) === 10) j += 2;
  else if (c === 10) j += 1;
  else if (c === 92) {
    while (text.charCodeAt(j) === 92) j++;
    if (text.charCodeAt(j) === 114 /* r */) {
      const r = j++;
      while (text.charCodeAt(j) === 92) j++;
      if (j === r + 1 || text.charCodeAt(j) !== 110) return 0;
    } else if (text.charCodeAt(j) !== 110 /* n */) return 0;
    j++;
  } else return 0;
  while (text.charCodeAt(j) === 32 || text.charCodeAt(j) === 9) j++;
  return j - i;
}

/** `text` without its line breaks (see breakAt). */
export function withoutBreaks(text: string): string {
  return joinedText(text)?.text ?? text;
}

/**
 * `text` with its line breaks taken out (see breakAt), so output wrapped at any width (`base64 -w 10`, `fold -w 8`,
 * `xxd -p`, PEM) reads as one line; undefined when it has none. Linear in `text`; the way back is worked out only when
 * `place` is first called (a match, the rare case).
 */
export function joinedText(text: string): JoinedText | undefined {
  // One pass, code by code into one buffer: a text of millions of short lines would be millions of slices to join.
  const codes = new Uint16Array(text.length);
  let n = 0;
  for (let i = 0; i < text.length;) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13 || c === 92) {
      const size = breakAt(text, i);
      if (size) {
        i += size;
        continue;
      }
      // A run of backslashes that begins no break begins none further in either: kept whole, read once.
      while (c === 92 && text.charCodeAt(i + 1) === 92) codes[n++] = text.charCodeAt(i++);
    }
    codes[n++] = c;
    i++;
  }
  if (n === text.length) return undefined;
  const joined = fromCodes(codes, n);
  let map: PieceMap | undefined;
  return {
    text: joined,
    place(start, end) {
      map ??= piecesOf(text);
      return map.place(start, end);
    },
  };
}

/** Calls `found` with each line break of `text` in order (see breakAt). Linear: a run of backslashes is read once. */
function eachBreak(text: string, found: (at: number, size: number) => void): void {
  const next = candidates(text);
  for (let i = next(0); i >= 0;) {
    const size = breakAt(text, i);
    if (size) {
      found(i, size);
      i = next(i + size);
      continue;
    }
    let after = i + 1;
    while (text.charCodeAt(after) === 92) after++;
    i = next(after);
  }
}

/**
 * A function giving the next place at or after `from` where a break may begin (`\n`, `\r` or `\`), or -1, for
 * `from` that only grows (each character is searched for by `indexOf` again only once passed).
 */
function candidates(text: string): (from: number) => number {
  const chars = ["\n", "\r", "\\"];
  const at = [-2, -2, -2];
  return (from) => {
    let best = -1;
    for (let k = 0; k < 3; k++) {
      if (at[k]! !== -1 && at[k]! < from) at[k] = text.indexOf(chars[k]!, from);
      if (at[k]! >= 0 && (best < 0 || at[k]! < best)) best = at[k]!;
    }
    return best;
  };
}

function piecesOf(text: string): PieceMap {
  const map = new PieceMap();
  let kept = 0;
  let viewAt = 0;
  eachBreak(text, (at, size) => {
    if (at > kept) map.add(viewAt, at - kept, kept, at - kept);
    viewAt += at - kept;
    kept = at + size;
  });
  map.add(viewAt, text.length - kept, kept, text.length - kept);
  return map;
}

/** The string of the first `n` UTF-16 codes in `codes`. */
export function fromCodes(codes: Uint16Array, n: number): string {
  return Buffer.from(codes.buffer, codes.byteOffset, 2 * n).toString("utf16le");
}
