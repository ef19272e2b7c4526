import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { MAX_STATE_TEXT_BYTES } from "./state/json-file.js";
import { ownReadFlags } from "./state/own-path.js";

/**
 * The longest line of a JSONL log keel reads (64 MiB, as much as a checkpoint it reads): far past any
 * line keel writes. A longer line (a log keel did not write, or one a repository committed) is
 * passed over without being held in memory, and reported as skipped.
 */
export const MAX_LOG_LINE_BYTES = MAX_STATE_TEXT_BYTES;

/** Bytes read from a log at a time. */
const CHUNK_BYTES = 1024 * 1024;

/** A line of a log: its bytes (without the newline) and the byte offset it starts at. */
export interface LogLine {
  line: Buffer;
  offset: number;
}

/** A line longer than the limit, passed over unread: where it starts, how long it is, and its first bytes. */
export interface SkippedLine {
  skipped: true;
  offset: number;
  bytes: number;
  /** Its first bytes (at most 64 KiB): enough to tell what kind of entry it claims to be. */
  head: Buffer;
}

/** What a log reader hands on: a line, or a line passed over for its length. */
export type LogItem = LogLine | SkippedLine;

/** How much of a skipped line is kept to tell what it is. */
const HEAD_BYTES = 64 * 1024;

/**
 * Splits bytes fed in order into lines, holding at most `maxLineBytes` of one line: a longer line is
 * counted, not kept, and handed on as a SkippedLine when it ends. Offsets count from `start`.
 */
export class LineSplitter {
  private pieces: Buffer[] = [];
  private held = 0;
  private length = 0;
  private skipping = false;
  private lineStart: number;

  constructor(
    private readonly maxLineBytes = MAX_LOG_LINE_BYTES,
    start = 0,
  ) {
    this.lineStart = start;
  }

  /** Where the line being read (not ended yet) starts: everything before it has been handed on. */
  get pending(): number {
    return this.lineStart;
  }

  /** Feeds the next bytes; `out` gets each line they end. Lines are views of `chunk` where they can be: never reuse it. */
  push(chunk: Buffer, out: (item: LogItem) => void): void {
    for (let i = 0; i < chunk.length;) {
      const nl = chunk.indexOf(0x0a, i);
      const end = nl < 0 ? chunk.length : nl;
      this.keep(chunk.subarray(i, end));
      if (nl < 0) return;
      out(this.take());
      i = nl + 1;
    }
  }

  /** The end of the input: a last line without a newline (a torn write) is handed on too. */
  end(out: (item: LogItem) => void): void {
    if (this.length > 0 || this.pieces.length > 0) out(this.take(false));
  }

  private keep(part: Buffer): void {
    this.length += part.length;
    if (this.skipping) {
      if (this.held < HEAD_BYTES) this.hold(part.subarray(0, HEAD_BYTES - this.held));
      return;
    }
    if (this.length > this.maxLineBytes) {
      // Over the limit: only its first bytes are kept, to tell what it is.
      this.skipping = true;
      const kept = this.pieces;
      this.pieces = [];
      this.held = 0;
      for (const piece of [...kept, part]) if (this.held < HEAD_BYTES) this.hold(piece.subarray(0, HEAD_BYTES - this.held));
      return;
    }
    this.hold(part);
  }

  private hold(part: Buffer): void {
    if (!part.length) return;
    this.pieces.push(part);
    this.held += part.length;
  }

  private take(newline = true): LogItem {
    const offset = this.lineStart;
    const bytes = this.pieces.length === 1 ? this.pieces[0]! : Buffer.concat(this.pieces);
    const item: LogItem = this.skipping ? { skipped: true, offset, bytes: this.length, head: bytes } : { line: bytes, offset };
    this.lineStart += this.length + (newline ? 1 : 0);
    this.pieces = [];
    this.held = 0;
    this.length = 0;
    this.skipping = false;
    return item;
  }
}

/** Which lines of a log `logLines` reads. */
export interface LogLinesOptions {
  /** First byte to read (default 0); ignored with `backward`. */
  from?: number;
  /** Last line first, from the end of the file. */
  backward?: boolean;
  /** Also the last line when it has no newline (a torn write); else it is left for a later read (see `splitter`). */
  torn?: boolean;
  /** Carries a line not ended yet from one read to the next (following a growing log); its `pending` says where to read from next. */
  splitter?: LineSplitter;
  maxLineBytes?: number;
}

/**
 * The lines of a log, read a chunk at a time: memory stays within one chunk and one line of at most
 * `maxLineBytes` (a longer one comes as a SkippedLine). Opened as keel reads its own files (a link
 * under `.keel` reads as no file, without blocking: a FIFO or device yields nothing). Reads up to the
 * size the file had when opened. Empty lines are handed on too.
 */
export function* logLines(file: string, opts: LogLinesOptions = {}): Generator<LogItem, void, undefined> {
  const log = openLog(file);
  if (!log) return;
  try {
    if (opts.backward) yield* linesBackward(log.fd, log.size, opts.maxLineBytes ?? MAX_LOG_LINE_BYTES);
    else yield* readLinesFrom(log.fd, opts.from ?? 0, log.size, opts);
  } finally {
    closeSync(log.fd);
  }
}

/**
 * Opens a log as keel reads its own files (a link under `.keel` reads as no file; without blocking)
 * and returns its descriptor and size; undefined when there is none or it is not a regular file (closed then).
 */
export function openLog(file: string): { fd: number; size: number } | undefined {
  let fd: number;
  try {
    fd = openSync(file, ownReadFlags(file));
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (st.isFile()) return { fd, size: st.size };
  } catch {
    // unreadable: as no file
  }
  closeSync(fd);
  return undefined;
}

/** The lines of an open log from byte `from` to byte `to`, as `logLines` reads them. */
export function* readLinesFrom(fd: number, from: number, to: number, opts: LogLinesOptions = {}): Generator<LogItem, void, undefined> {
  const splitter = opts.splitter ?? new LineSplitter(opts.maxLineBytes, from);
  const ready: LogItem[] = [];
  const out = (item: LogItem) => void ready.push(item);
  for (let at = from; at < to;) {
    // A fresh chunk per read: the lines handed on are views of it, not copies (one allocation per MiB, not per line).
    const buf = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, to - at));
    const n = readSync(fd, buf, 0, Math.min(buf.length, to - at), at);
    if (n === 0) break;
    at += n;
    splitter.push(buf.subarray(0, n), out);
    yield* ready.splice(0);
  }
  if (opts.torn) splitter.end(out);
  yield* ready.splice(0);
}

function* linesBackward(fd: number, size: number, maxLineBytes: number): Generator<LogItem, void, undefined> {
  const buf = Buffer.alloc(CHUNK_BYTES);
  let pieces: Buffer[] = [];
  let length = 0;
  const add = (part: Buffer) => {
    length += part.length;
    if (length <= maxLineBytes) pieces.unshift(Buffer.from(part));
    else pieces = [];
  };
  // a skipped line's head is not kept when reading backwards (its first bytes come last)
  const take = (start: number): LogItem => {
    const item: LogItem =
      length > maxLineBytes ? { skipped: true, offset: start, bytes: length, head: Buffer.alloc(0) } : { line: Buffer.concat(pieces), offset: start };
    pieces = [];
    length = 0;
    return item;
  };
  for (let at = size; at > 0;) {
    const n = Math.min(buf.length, at);
    at -= n;
    for (let got = 0; got < n;) {
      const r = readSync(fd, buf, got, n - got, at + got);
      if (r === 0) return; // the file shrank while being read
      got += r;
    }
    for (let end = n; ;) {
      const nl = end > 0 ? buf.lastIndexOf(0x0a, end - 1) : -1;
      add(buf.subarray(nl + 1, end));
      if (nl < 0) break;
      yield take(at + nl + 1);
      end = nl;
    }
  }
  if (size > 0) yield take(0);
}
