import { fromCodes } from "./joined-text.js";
import type { Range } from "./secret-ranges.js";

/** Between two blocks of dump lines: a character no byte reads as, so no match spans two blocks. */
const GAP = 0xffff;

/** The bytes a dump shows (as latin1 characters) and what its ASCII column shows, with the way back to the text. */
export interface DumpText {
  /** The bytes read from the dump's columns, one character per byte; blocks of dump lines apart by GAP. */
  readonly bytes: string;
  /** The ASCII columns (`xxd`, `hexdump -C`, `od -t x1z`) of consecutive lines joined, blocks apart by GAP. */
  readonly gutter: string;
  /** The stretch of the text that `bytes`' `[start, end)` were read from (the digits of its first and last bytes). */
  placeBytes(start: number, end: number): Range;
  /** The stretch of the text that `gutter`'s `[start, end)` is. */
  placeGutter(start: number, end: number): Range;
}

/** Collects the bytes and ASCII columns read, and (on the second reading, after a match) where each came from. */
class Reader {
  private bytesRead: Uint16Array | undefined;
  private gutterRead: Uint16Array | undefined;
  nb = 0;
  ng = 0;
  private readonly byteAt: Int32Array | undefined;
  private readonly byteEnd: Int32Array | undefined;
  private readonly gutterAt: Int32Array | undefined;

  constructor(
    private readonly text: string,
    withPlaces: boolean,
  ) {
    if (!withPlaces) return;
    this.byteAt = new Int32Array(text.length);
    this.byteEnd = new Int32Array(text.length);
    this.gutterAt = new Int32Array(text.length);
  }

  // Made when the first byte is read (most texts hold no dump line). Each byte takes one character or more of the
  // text (a digit pair, an `od -c` field), so the text's length is large enough.
  get bytes(): Uint16Array {
    return (this.bytesRead ??= new Uint16Array(this.text.length));
  }

  get gutter(): Uint16Array {
    return (this.gutterRead ??= new Uint16Array(this.text.length));
  }

  byte(code: number, at: number, size: number): void {
    if (this.byteAt) {
      this.byteAt[this.nb] = at;
      this.byteEnd![this.nb] = at + size;
    }
    this.bytes[this.nb++] = code;
  }

  column(at: number, end: number): void {
    for (let i = at; i < end; i++) {
      if (this.gutterAt) this.gutterAt[this.ng] = i;
      this.gutter[this.ng++] = this.text.charCodeAt(i);
    }
  }

  gap(): void {
    if (this.nb && this.bytes[this.nb - 1] !== GAP) this.byte(GAP, -1, 0);
    if (this.ng && this.gutter[this.ng - 1] !== GAP) {
      if (this.gutterAt) this.gutterAt[this.ng] = -1;
      this.gutter[this.ng++] = GAP;
    }
  }

  placeBytes(start: number, end: number): Range {
    return [this.byteAt![start]!, this.byteEnd![end - 1]!];
  }

  placeGutter(start: number, end: number): Range {
    return [this.gutterAt![start]!, this.gutterAt![end - 1]! + 1];
  }
}

/**
 * The bytes that the dump lines in `text` show and their ASCII column, as `xxd` (any `-g`, `-c`, `-u`), `hexdump`
 * (`-C` and its default 16-bit words), `od` (`-t x1`, `-t x1z`, `-x`, `-b`, `-c` and its default octal words) print
 * them; undefined when `text` has no such line. Linear in `text`; the way back is worked out on the first `place…`
 * call (a match, the rare case). Words are read as each tool prints them: `xxd` in the file's byte order, `od` and
 * `hexdump` as little-endian numbers.
 */
export function dumpText(text: string): DumpText | undefined {
  const read = new Reader(text, false);
  readDump(text, read);
  if (!read.nb) return undefined;
  let places: Reader | undefined;
  const placed = () => {
    if (!places) readDump(text, (places = new Reader(text, true)));
    return places;
  };
  return {
    bytes: fromCodes(read.bytes, read.nb),
    gutter: fromCodes(read.gutter, read.ng),
    placeBytes: (start, end) => placed().placeBytes(start, end),
    placeGutter: (start, end) => placed().placeGutter(start, end),
  };
}

/** Where a dump line may begin: an offset (hex digits, then `:` or a blank), a pair of hex digits, or a blank (the rest is read by readLine). */
const LINE_START = /^(?:[0-9a-fA-F]{2}| )/gm;

/** Reads each dump line of `text` into `read`; a line that is not one ends a block. */
function readDump(text: string, read: Reader): void {
  let lastEnd = -2;
  for (const m of text.matchAll(LINE_START)) {
    const start = m.index;
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    if (start !== lastEnd + 1) read.gap();
    const nb = read.nb;
    const ng = read.ng;
    if (readLine(text, start, end, read)) lastEnd = end;
    else {
      read.nb = nb;
      read.ng = ng;
    }
  }
}

const isHex = (c: number) => (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
const hexValue = (c: number) => (c <= 57 ? c - 48 : (c | 32) - 87);
const SPACE = 32;

/**
 * Reads one line `[start, end)` if it is a dump line: an offset (6 to 16 digits: `xxd` 8, `hexdump` 7 or 8, `od` 7,
 * `od -A x` 6), `:` for `xxd`, then the columns; or the columns without the offset: `od -An` (its columns begin with
 * a blank), or groups of hex digits apart by blanks (`hexdump -e '/1 "%02x "'`, Python's `bytes.hex(" ")`). True
 * when it was one; else what it read is to be undone.
 */
function readLine(text: string, start: number, end: number, read: Reader): boolean {
  const nb = read.nb;
  const ng = read.ng;
  if (offsetLine(text, start, end, read)) return true;
  read.nb = nb;
  read.ng = ng;
  if (numberLine(text, start, end, read)) return true;
  read.nb = nb;
  read.ng = ng;
  return text.charCodeAt(start) === SPACE && odCharLine(text, start, end, read);
}

/** A dump line that begins with its offset (see readLine). */
function offsetLine(text: string, start: number, end: number, read: Reader): boolean {
  let i = start;
  while (i < end && i - start <= 16 && isHex(text.charCodeAt(i))) i++;
  const digits = i - start;
  if (digits < 6 || digits > 16 || i >= end) return false;
  if (text.charCodeAt(i) === 58 /* : */) return i + 1 < end && text.charCodeAt(i + 1) === SPACE && xxdLine(text, i + 2, end, read);
  if (text.charCodeAt(i) !== SPACE) return false;
  const nb = read.nb;
  const ng = read.ng;
  if (numberLine(text, i, end, read)) return true;
  read.nb = nb;
  read.ng = ng;
  return odCharLine(text, i, end, read);
}

/** `xxd`: groups of hex digits apart by one blank, then two blanks or more and the ASCII column to the line's end. */
function xxdLine(text: string, at: number, end: number, read: Reader): boolean {
  let i = at;
  while (i < end && text.charCodeAt(i) !== SPACE) {
    let j = i;
    while (j < end && isHex(text.charCodeAt(j))) j++;
    if (j === i || (j - i) % 2 || (j < end && text.charCodeAt(j) !== SPACE)) return false;
    for (let k = i; k < j; k += 2) read.byte(hexByte(text, k), i, j - i);
    i = j + 1;
  }
  if (i === at) return false;
  while (i < end && text.charCodeAt(i) === SPACE) i++;
  read.column(i, end);
  return true;
}

/**
 * `od` and `hexdump` with numbers: groups apart by one to three blanks (2, 4, 8 or 16 hex digits, 3 octal ones for
 * `od -b`, 6 for `od`'s default 16-bit words), then maybe `|…|` or `>…<` around the ASCII column.
 */
function numberLine(text: string, at: number, end: number, read: Reader): boolean {
  let i = at;
  let groups = 0;
  for (;;) {
    const blanksAt = i;
    while (i < end && text.charCodeAt(i) === SPACE) i++;
    if (i >= end) return groups > 0;
    const c = text.charCodeAt(i);
    if (c === 124 /* | */ || c === 62 /* > */) {
      if (!groups || i - blanksAt < 2 || end - i < 2 || text.charCodeAt(end - 1) !== (c === 124 ? 124 : 60)) return false;
      read.column(i + 1, end - 1);
      return true;
    }
    if (i - blanksAt > 3) return false;
    let j = i;
    while (j < end && isHex(text.charCodeAt(j))) j++;
    const size = j - i;
    if (j < end && text.charCodeAt(j) !== SPACE) return false;
    if (size === 3 || size === 6) {
      if (!isOctal(text, i, j)) return false;
      let n = 0;
      for (let k = i; k < j; k++) n = n * 8 + text.charCodeAt(k) - 48;
      read.byte(n & 255, i, size);
      if (size === 6) read.byte((n >> 8) & 255, i, size);
    } else {
      if (size < 2 || size > 16 || size % 2) return false;
      // A little-endian number: its last pair of digits is the first byte.
      for (let k = j - 2; k >= i; k -= 2) read.byte(hexByte(text, k), i, size);
    }
    groups++;
    i = j;
  }
}

function hexByte(text: string, at: number): number {
  return hexValue(text.charCodeAt(at)) * 16 + hexValue(text.charCodeAt(at + 1));
}

function isOctal(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (text.charCodeAt(i) < 48 || text.charCodeAt(i) > 55) return false;
  return true;
}

/** The backslash escapes `od -c` prints, by the letter after the backslash. */
const OD_ESCAPES = new Map([..."0abfnrtv"].map((c, i) => [c.charCodeAt(0), [0, 7, 8, 12, 10, 13, 9, 11][i]!]));

/** `od -c`: fields four characters wide (a character, a backslash escape, three octal digits, or `**`). */
function odCharLine(text: string, at: number, end: number, read: Reader): boolean {
  if ((end - at) % 4) return false;
  for (let i = at; i < end; i += 4) {
    let blanks = 0;
    while (blanks < 4 && text.charCodeAt(i + blanks) === SPACE) blanks++;
    const where = i + blanks;
    const c = text.charCodeAt(where);
    if (blanks === 4) read.byte(SPACE, i + 3, 1);
    else if (blanks === 3) {
      if (c < 0x80) read.byte(c, where, 1);
      else if (c >= 0xd800 && c <= 0xdfff) return false;
      else for (const b of Buffer.from(text[where]!)) read.byte(b, where, 1);
    } else if (blanks === 2) {
      const d = text.charCodeAt(where + 1);
      if (c === 92 /* \ */ && OD_ESCAPES.has(d)) read.byte(OD_ESCAPES.get(d)!, where, 2);
      else if (c === 42 && d === 42)
        continue; // `**`: the rest of the character before
      else if (c >= 0xd800 && c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) for (const b of Buffer.from(text.slice(where, where + 2))) read.byte(b, where, 2);
      else return false;
    } else if (blanks === 1 && isOctal(text, where, where + 3)) {
      read.byte(((c - 48) * 64 + (text.charCodeAt(where + 1) - 48) * 8 + text.charCodeAt(where + 2) - 48) & 255, where, 3);
    } else return false;
  }
  return true;
}
