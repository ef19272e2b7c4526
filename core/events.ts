import { closeSync, existsSync, fdatasyncSync, fstatSync, mkdirSync, readFileSync, readSync, statSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { assertOwnPath, openOwnFileSync } from "./state/own-path.js";
import type { EventInput, EventSegment, KeelEvent, SegmentSink } from "./types.js";

/** Pending text at which `commit` writes at once instead of at the end of the burst. */
const COMMIT_NOW_CHARS = 64 * 1024;

/**
 * Appends events as JSON lines. Events are serialized when emitted (a call's pipeline events,
 * queued as a segment, when written), buffered in memory and written with one synchronous
 * `write` per `flush`. The pipeline flushes before executing a tool
 * that is not read-only, and `commit`s when a call ends: the write then happens once the current
 * run of synchronous work and microtasks is over (before any I/O callback or timer runs), so calls
 * finishing together share one write (at most 64 KiB wait). Pending events are also written when
 * the process exits. The file is keel's own: a symlinked folder on its way under `.keel` is refused
 * (StateError from `flush`) and a symlink at the file itself is replaced, never written through.
 */
export class JsonlEventSink implements SegmentSink {
  private fd: number | undefined;
  /** Size of the file after the last write (while open). */
  private written = 0;
  /** Bytes were written since the last fsync. */
  private unsynced = false;
  /** What is not written yet, in order: text (lines ending in "\n") and call segments. */
  private queue: (string | EventSegment)[] = [];
  /** Lines emitted after the last queued segment. */
  private text = "";
  /** Segments queued since the last write (each counts as ~1 KiB towards COMMIT_NOW_CHARS). */
  private segments = 0;
  /** A `commit` is scheduled. */
  private committing = false;
  private readonly onCommit = () => {
    this.committing = false;
    try {
      this.flush(false);
    } catch {
      // Kept pending: the next flush (before a tool with side effects, or at 64 KiB) retries and
      // reports the error to its caller instead of crashing the process from a tick.
    }
  };
  private readonly onExit = () => {
    try {
      this.flush(false);
    } catch {
      // nothing more can be done while exiting
    }
  };

  /**
   * `onOpen` runs once before the first write (e.g. to create `.keel/` and its `.gitignore`).
   * `syncOnFlush`: a `flush()` without an argument also fsyncs (a session's log: what the pipeline
   * flushes before a tool with side effects survives a machine crash).
   */
  constructor(
    readonly file: string,
    private readonly onOpen?: () => void,
    private readonly syncOnFlush = false,
  ) {}

  /** Buffers one event; `ts` defaults to now (and then comes first). The line is exactly `JSON.stringify` of the event. */
  emit(event: EventInput): void {
    this.text += (event.ts === undefined ? serializeEvent(event, Date.now()) : JSON.stringify(event)) + "\n";
  }

  /** Queues a call's events, rendered to lines when they are written. */
  appendSegment(segment: EventSegment): void {
    if (this.text !== "") {
      this.queue.push(this.text);
      this.text = "";
    }
    this.queue.push(segment);
    this.segments++;
  }

  /** Whether `segment` was queued last and is not written yet. */
  isLastSegment(segment: EventSegment): boolean {
    return this.text === "" && this.queue[this.queue.length - 1] === segment;
  }

  /**
   * Writes buffered events soon: after the current synchronous code and the microtasks it queues
   * (`process.nextTick`), before the event loop runs any I/O callback or timer. Concurrent calls
   * that end in the same burst share one `write`.
   */
  commit(): void {
    // A long run of calls that never yields to the event loop must not pile events up: write now.
    if (this.text.length + this.segments * 1024 >= COMMIT_NOW_CHARS) return this.flush(false);
    if (this.committing || (this.text === "" && this.queue.length === 0)) return;
    this.committing = true;
    process.nextTick(this.onCommit);
  }

  /**
   * Writes buffered events to the file now (creating it on first use): they survive a crash of this
   * process. With `durable` (default: `syncOnFlush`), also fsyncs (they survive a crash of the machine).
   */
  flush(durable = this.syncOnFlush): void {
    if (this.text === "" && this.queue.length === 0) {
      if (durable && this.unsynced && this.fd !== undefined) {
        fdatasyncSync(this.fd);
        this.unsynced = false;
      }
      return;
    }
    if (this.fd === undefined) {
      this.onOpen?.();
      // Never through a link planted in the repository: linked folders are refused, a linked file replaced.
      assertOwnPath(this.file);
      if (!existsSync(dirname(this.file))) mkdirSync(dirname(this.file), { recursive: true });
      this.fd = openOwnFileSync(this.file, "append");
      endTornLine(this.fd);
      this.written = fstatSync(this.fd).size;
      process.on("exit", this.onExit);
    }
    let out = "";
    for (const part of this.queue) out += typeof part === "string" ? part : part.lines();
    out += this.text;
    const bytes = Buffer.from(out);
    writeSync(this.fd, bytes); // on failure the events stay pending
    this.written += bytes.length;
    this.queue = [];
    this.text = "";
    this.segments = 0;
    if (durable) fdatasyncSync(this.fd);
    this.unsynced = !durable;
  }

  /** Size of the file with everything written so far (buffered events not counted). */
  position(): number {
    if (this.fd !== undefined) return this.written;
    return existsSync(this.file) ? statSync(this.file).size : 0;
  }

  /** Flushes and closes the file. */
  close(): void {
    this.flush();
    if (this.fd !== undefined) {
      closeSync(this.fd);
      process.off("exit", this.onExit);
    }
    this.fd = undefined;
  }
}

/** If the file ends in a torn line (a crash mid-write), ends it so the next event starts on its own line. */
function endTornLine(fd: number): void {
  const size = fstatSync(fd).size;
  if (size === 0) return;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  if (last[0] !== 0x0a) writeSync(fd, "\n");
}

/** A sink that keeps events in memory (for benchmarks, nested runs and tests). */
export class MemoryEventSink implements SegmentSink {
  /** Events and not yet expanded call segments, in order. */
  private items: (KeelEvent | EventSegment)[] = [];
  private expanded = true;

  /** Every event so far, in order (call segments are expanded into event objects on first read). */
  get events(): KeelEvent[] {
    if (!this.expanded) {
      const out: KeelEvent[] = [];
      for (const item of this.items) {
        if (isSegment(item)) for (const e of item.toEvents()) out.push(e);
        else out.push(item);
      }
      this.items = out;
      this.expanded = true;
    }
    return this.items as KeelEvent[];
  }

  /** Records one event; one that already has `ts` is kept as given (not copied). */
  emit(event: EventInput): void {
    this.items.push(event.ts === undefined ? ({ ts: Date.now(), ...event } as KeelEvent) : (event as KeelEvent));
  }

  /** Keeps a call's events, expanded when `events` is read. */
  appendSegment(segment: EventSegment): void {
    this.items.push(segment);
    this.expanded = false;
  }

  /** Whether `segment` was appended last and not expanded since. */
  isLastSegment(segment: EventSegment): boolean {
    return this.items[this.items.length - 1] === segment;
  }

  /** Forgets every event kept so far. */
  clear(): void {
    this.items = [];
    this.expanded = true;
  }

  /** No-op. */
  flush(): void {}
}

function isSegment(item: KeelEvent | EventSegment): item is EventSegment {
  return typeof (item as EventSegment).toEvents === "function";
}

/** Reads a JSONL event file; a torn or invalid line (e.g. after a crash) is skipped, never fatal. */
export function readEvents(file: string): KeelEvent[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const out: KeelEvent[] = [];
  for (const line of text.split("\n")) {
    if (!line) continue;
    try {
      out.push(JSON.parse(line) as KeelEvent);
    } catch {
      // torn line from a crash mid-write: tolerated
    }
  }
  return out;
}

/** Strings JSON needs no escapes for (no quote, backslash, control character or surrogate). */
const PLAIN = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;
const quotedKeys = new Map<string, string>();

/** `s` as a JSON string literal, exactly as `JSON.stringify(s)` writes it. */
export function jsonString(s: string): string {
  return s.length < 512 && PLAIN.test(s) ? `"${s}"` : JSON.stringify(s);
}

/**
 * The JSON text of `value` as the member `key` of an object, exactly as `JSON.stringify` writes it
 * there, or undefined when it omits the member (undefined, functions, symbols). Primitives skip the
 * generic serializer.
 */
export function jsonMember(key: string, value: unknown): string | undefined {
  switch (typeof value) {
    case "string":
      return jsonString(value);
    case "number":
      return Number.isFinite(value) ? String(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
    default: {
      if (value === null) return "null";
      // `toJSON` receives the member's key: serialize inside a one-member object to keep that exact.
      if (typeof (value as { toJSON?: unknown }).toJSON === "function") {
        const text = JSON.stringify({ [key]: value });
        return text === "{}" ? undefined : text.slice(JSON.stringify(key).length + 2, -1);
      }
      return JSON.stringify(value);
    }
  }
}

/** `{"ts":…,…}`: the event with `ts` first, byte for byte what `JSON.stringify({ ts, ...event })` gives. */
function serializeEvent(event: object, ts: number): string {
  if (typeof (event as { toJSON?: unknown }).toJSON === "function") return `{"ts":${ts},${JSON.stringify(event).slice(1)}`;
  let out = `{"ts":${ts}`;
  for (const key of Object.keys(event)) {
    if (key === "ts") continue;
    const text = jsonMember(key, (event as Record<string, unknown>)[key]);
    if (text === undefined) continue;
    let quoted = quotedKeys.get(key);
    if (quoted === undefined) {
      quoted = `,${JSON.stringify(key)}:`;
      if (quotedKeys.size < 1024) quotedKeys.set(key, quoted);
    }
    out += quoted + text;
  }
  return out + "}";
}
