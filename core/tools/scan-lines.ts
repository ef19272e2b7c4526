import type { FileHandle } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";

/** How `scanLines` reads a file. */
export interface ScanLinesOptions {
  signal: AbortSignal;
  /** Called with every line (1-based number); return `false` to stop reading. */
  onLine(line: string, lineNo: number): boolean | void;
  /** Called with every chunk of bytes before its lines (e.g. to hash the file). */
  onChunk?(chunk: Buffer): void;
  /** Where a NUL byte makes the file binary: anywhere, or only in the first 8 KiB (like grep). Default anywhere. */
  nul?: "anywhere" | "head";
}

/** How a scan ended: `lines` counts the lines seen (every line when `complete`). */
export interface ScanLinesResult {
  binary: boolean;
  complete: boolean;
  lines: number;
  /** Lines longer than MAX_LINE_CHARS, handed on cut. */
  cutLines: number;
}

const HEAD_BYTES = 8192;

/** Longest line `scanLines` hands on (characters); the rest of a longer line is skipped. */
export const MAX_LINE_CHARS = 1 << 24;

/**
 * Streams an open file from its start in 1 MiB chunks (the handle stays open: the caller that
 * opened and checked it closes it) and calls `onLine` for each line. Work is linear in the file's
 * size and memory bounded: a line longer than MAX_LINE_CHARS is handed on cut to that length (the
 * rest of it is skipped, counted in `cutLines`), so one huge line cannot exhaust memory or time.
 * Lines split on "\n" exactly like `String#split` (a trailing newline ends with an empty last line,
 * `\r` is kept), decoded as UTF-8 across chunk borders. Stops at a NUL byte (binary), when `onLine`
 * returns false, or on `signal` (rejects with the abort error).
 */
export async function scanLines(file: FileHandle, opts: ScanLinesOptions): Promise<ScanLinesResult> {
  const stream = file.createReadStream({ start: 0, autoClose: false, signal: opts.signal, highWaterMark: 1 << 20 });
  const decoder = new StringDecoder("utf8");
  let lineNo = 0;
  let offset = 0;
  // The line being read, in pieces (joined once it ends, so a line spanning chunks costs linear time).
  let pending: string[] = [];
  let pendingChars = 0;
  let cutting = false;
  let cutLines = 0;
  const take = (piece: string) => {
    if (cutting || piece === "") return;
    const room = MAX_LINE_CHARS - pendingChars;
    cutting = piece.length > room;
    const kept = cutting ? piece.slice(0, room) : piece;
    pending.push(kept);
    pendingChars += kept.length;
  };
  const line = (): string => {
    const text = pending.length === 1 ? pending[0]! : pending.join("");
    if (cutting) cutLines++;
    pending = [];
    pendingChars = 0;
    cutting = false;
    return text;
  };
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const nulAt = chunk.indexOf(0);
      if (nulAt !== -1 && (opts.nul !== "head" || offset + nulAt < HEAD_BYTES)) return { binary: true, complete: false, lines: lineNo, cutLines };
      offset += chunk.length;
      opts.onChunk?.(chunk);
      const text = decoder.write(chunk);
      let start = 0;
      for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
        take(text.slice(start, nl));
        lineNo++;
        if (opts.onLine(line(), lineNo) === false) return { binary: false, complete: false, lines: lineNo, cutLines };
        start = nl + 1;
      }
      take(text.slice(start));
    }
  } finally {
    stream.destroy();
  }
  take(decoder.end());
  lineNo++;
  opts.onLine(line(), lineNo);
  return { binary: false, complete: true, lines: lineNo, cutLines };
}
