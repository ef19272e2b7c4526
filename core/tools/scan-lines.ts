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
}

const HEAD_BYTES = 8192;

/**
 * Streams an open file from its start in 1 MiB chunks (the handle stays open: the caller that
 * opened and checked it closes it) and calls `onLine` for each line, so memory stays bounded by the
 * longest line whatever the file's size. Lines split on "\n" exactly like `String#split` (a trailing
 * newline ends with an empty last line, `\r` is kept), decoded as UTF-8 across chunk borders. Stops
 * at a NUL byte (binary), when `onLine` returns false, or on `signal` (rejects with the abort error).
 */
export async function scanLines(file: FileHandle, opts: ScanLinesOptions): Promise<ScanLinesResult> {
  const stream = file.createReadStream({ start: 0, autoClose: false, signal: opts.signal, highWaterMark: 1 << 20 });
  const decoder = new StringDecoder("utf8");
  let lineNo = 0;
  let offset = 0;
  let partial = "";
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const nulAt = chunk.indexOf(0);
      if (nulAt !== -1 && (opts.nul !== "head" || offset + nulAt < HEAD_BYTES)) return { binary: true, complete: false, lines: lineNo };
      offset += chunk.length;
      opts.onChunk?.(chunk);
      const text = partial + decoder.write(chunk);
      let start = 0;
      for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
        lineNo++;
        if (opts.onLine(text.slice(start, nl), lineNo) === false) return { binary: false, complete: false, lines: lineNo };
        start = nl + 1;
      }
      partial = text.slice(start);
    }
  } finally {
    stream.destroy();
  }
  lineNo++;
  opts.onLine(partial + decoder.end(), lineNo);
  return { binary: false, complete: true, lines: lineNo };
}
