import type { FileHandle } from "node:fs/promises";
import { createHash } from "../lazy-crypto.js";
import { scanLines } from "./scan-lines.js";

/** What `readLineWindow` asks for: lines `offset` .. `offset + limit - 1` (1-based). */
export interface LineWindowRequest {
  offset: number;
  limit?: number;
  /** Keep reading after the window to count every line and hash the bytes (for the read baseline). */
  toEnd: boolean;
  /** Stop collecting once the window holds this many characters (a memory guard; `cut` tells). */
  maxChars: number;
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
  /** True when collecting stopped at `maxChars` before the window was full. */
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
  let chars = 0;
  let cut = false;
  const scan = await scanLines(file, {
    signal: req.signal,
    onChunk: (chunk) => hash.update(chunk),
    onLine(line, n) {
      if (n >= first && n <= last && !cut) {
        lines.push(line);
        chars += line.length + 1;
        cut = chars > req.maxChars;
      }
      return req.toEnd || (n < last && !cut);
    },
  });
  if (scan.binary) return { lines: [], binary: true, cut: false };
  if (!scan.complete) return { lines, binary: false, cut };
  return { lines, totalLines: scan.lines, sha1: hash.digest("hex"), binary: false, cut };
}
