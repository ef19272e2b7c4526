import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import type { EventSink, KeelEvent } from "./types.js";

/**
 * Appends events as JSON lines. Events are serialized when emitted, buffered in memory and
 * written with one synchronous `write` per `flush` (the pipeline flushes before executing a tool
 * that is not read-only and before returning), so a crash never loses an event a call had already returned.
 */
export class JsonlEventSink implements EventSink {
  private fd: number | undefined;
  /** Serialized lines not yet written, each ending in "\n". */
  private pending = "";

  /** `onOpen` runs once before the first write (e.g. to create `.keel/` and its `.gitignore`). */
  constructor(
    readonly file: string,
    private readonly onOpen?: () => void,
  ) {}

  /** Buffers one event; `ts` defaults to now (and then comes first). The line is exactly `JSON.stringify` of the event. */
  emit(event: Omit<KeelEvent, "ts"> & { ts?: number }): void {
    this.pending += (event.ts === undefined ? serializeEvent(event, Date.now()) : JSON.stringify(event)) + "\n";
  }

  /**
   * Buffers one event given as its serialized members after `ts` (`"type":"…","callId":…`), for hot
   * paths that build the JSON text directly; the line is the one `emit` writes for the same fields.
   */
  emitMembers(members: string): void {
    this.pending += `{"ts":${Date.now()},${members}}\n`;
  }

  /** Writes buffered events durably to the file (creating it on first use). */
  flush(): void {
    if (this.pending === "") return;
    if (this.fd === undefined) {
      this.onOpen?.();
      if (!existsSync(dirname(this.file))) mkdirSync(dirname(this.file), { recursive: true });
      this.fd = openSync(this.file, "a+");
      endTornLine(this.fd);
    }
    const text = this.pending;
    this.pending = "";
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
