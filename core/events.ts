import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import type { EventSink, KeelEvent } from "./types.js";

/**
 * Appends events as JSON lines. Events are buffered in memory and written with one
 * synchronous `write` per `flush` (the pipeline flushes before executing a tool that is not read-only and
 * before returning), so a crash never loses an event a call had already returned.
 */
export class JsonlEventSink implements EventSink {
  private fd: number | undefined;
  private buffer: string[] = [];

  /** `onOpen` runs once before the first write (e.g. to create `.keel/` and its `.gitignore`). */
  constructor(
    readonly file: string,
    private readonly onOpen?: () => void,
  ) {}

  /** Buffers one event; `ts` defaults to now. */
  emit(event: Omit<KeelEvent, "ts"> & { ts?: number }): void {
    // `ts` first without copying the event (this runs about a dozen times per tool call).
    this.buffer.push(event.ts === undefined ? `{"ts":${Date.now()},${JSON.stringify(event).slice(1)}` : JSON.stringify(event));
  }

  /** Writes buffered events durably to the file (creating it on first use). */
  flush(): void {
    if (this.buffer.length === 0) return;
    if (this.fd === undefined) {
      this.onOpen?.();
      if (!existsSync(dirname(this.file))) mkdirSync(dirname(this.file), { recursive: true });
      this.fd = openSync(this.file, "a+");
      endTornLine(this.fd);
    }
    const text = this.buffer.join("\n") + "\n";
    this.buffer = [];
    writeSync(this.fd, text);
  }

  /** Flushes and closes the file. */
  close(): void {
    this.flush();
    if (this.fd !== undefined) closeSync(this.fd);
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
export class MemoryEventSink implements EventSink {
  readonly events: KeelEvent[] = [];
  /** Records one event. */
  emit(event: Omit<KeelEvent, "ts"> & { ts?: number }): void {
    this.events.push({ ts: Date.now(), ...event } as KeelEvent);
  }
  /** No-op. */
  flush(): void {}
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
