import type { FileHandle } from "node:fs/promises";
import { createHash } from "../lazy-crypto.js";
import { scanLines } from "./scan-lines.js";

/** What `readLineWindow` asks for: lines `offset` .. `offset + limit - 1` (1-based). */
export interface LineWindowRequest {
  offset: number;
  limit?: number;
  /** Keep reading after the window to count every line and hash the bytes (for the read baseline). */
  toEnd: boolean;
  /** Most bytes (UTF-8, each line's newline counted) the window holds: the line that would pass it is cut to fit, and collecting stops (`cut` tells). */
  maxBytes: number;
  signal: AbortSignal;
}

/** A window of lines streamed from a file. */
export interface LineWindow {
  lines: string[];
  /** Every line of the file, when it was read to the end. */
  totalLines?: number;
  /** sha1 of all bytes, when the file was read to the end. */
  sha1?: string;
  /** True when a NUL byte was seen: the file is binary and reading stopped. */
  binary: boolean;
  /** True when collecting stopped at `maxBytes` before the window was full: the last line holds only its start. */
  cut: boolean;
}

/**
 * Streams the open `file` from its start (see `scanLines`) and returns only the requested line window, whatever the file's
 * size. Stops once the window is full unless `toEnd`; rejects when `signal` aborts.
 */
export async function readLineWindow(file: FileHandle, req: LineWindowRequest): Promise<LineWindow> {
  const first = req.offset;
  const last = req.limit === undefined ? Number.POSITIVE_INFINITY : first + req.limit - 1;
  const hash = createHash("sha1");
  const lines: string[] = [];
  let bytes = 0;
  let cut = false;
  const scan = await scanLines(file, {
    signal: req.signal,
    onChunk: (chunk) => hash.update(chunk),
    onLine(line, n) {
      if (n >= first && n <= last && !cut) {
        const size = Buffer.byteLength(line) + 1;
        cut = bytes + size > req.maxBytes;
        const kept = cut ? utf8Prefix(line, req.maxBytes - bytes) : line;
        lines.push(kept);
        bytes += cut ? Buffer.byteLength(kept) : size;
      }
      return req.toEnd || (n < last && !cut);
    },
  });
  if (scan.binary) return { lines: [], binary: true, cut: false };
  if (!scan.complete) return { lines, binary: false, cut };
  return { lines, totalLines: scan.lines, sha1: hash.digest("hex"), binary: false, cut };
}

/** The longest start of `text` whose UTF-8 takes at most `room` bytes (never half a surrogate pair). */
function utf8Prefix(text: string, room: number): string {
  if (room <= 0) return "";
  let end = Math.min(text.length, room);
  // a character takes at most 3 bytes per UTF-16 unit: shrink until it fits
  while (end > 0 && Buffer.byteLength(text.slice(0, end)) > room) end -= Math.max(1, Math.floor((Buffer.byteLength(text.slice(0, end)) - room) / 3));
  const code = text.charCodeAt(end - 1);
  if (end > 0 && code >= 0xd800 && code <= 0xdbff) end--;
  return text.slice(0, end);
}
