import { logLines, type LogLinesOptions, type SkippedLine } from "./jsonl-lines.js";
import type { KeelEvent } from "./types.js";

/** An event read from a log, with the byte offset of its line. */
export interface LoggedEvent {
  event: KeelEvent;
  offset: number;
}

/** What reading an event log yields: events, and lines passed over for their length (see `logLines`). */
export type EventLogItem = LoggedEvent | SkippedLine;

/**
 * The events of a JSONL event log, read line by line with bounded memory (see `logLines`: from byte
 * `from`, or last first with `backward`). A torn or invalid line (e.g. after a crash) is skipped
 * silently, never fatal; a line over the length limit is handed on as a SkippedLine. Never throws
 * for a missing log or one that is not a regular file (it yields nothing).
 */
export function* logEvents(file: string, opts: LogLinesOptions = {}): Generator<EventLogItem, void, undefined> {
  for (const item of logLines(file, { torn: true, ...opts })) {
    if ("skipped" in item) {
      yield item;
      continue;
    }
    if (item.line.length === 0) continue;
    let event: KeelEvent;
    try {
      event = JSON.parse(item.line.toString("utf8")) as KeelEvent;
    } catch {
      continue; // torn line from a crash mid-write: tolerated
    }
    yield { event, offset: item.offset };
  }
}
