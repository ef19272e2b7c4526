import { closeSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { UsageError } from "../../errors.js";
import { logEvents, type EventLogItem } from "../../event-log.js";
import { LineSplitter, MAX_LOG_LINE_BYTES, logLines, openLog, readLinesFrom, type LogItem, type SkippedLine } from "../../jsonl-lines.js";
import { isAlive, lockOwner } from "../../session/session-lock.js";
import { sessionPaths } from "../../session/session-paths.js";
import { readSessionMeta } from "../../session/session-store.js";
import { resolveWorkspace } from "../../workspace.js";
import { visibleJson } from "../../visible-json.js";
import type { CliContext } from "../cli-context.js";
import { printedJson } from "../printed-json.js";
import { terminalText } from "../terminal-text.js";

/** Options of `keel sessions events`. */
export interface SessionEventsOptions {
  follow?: boolean;
  /** Only the last N events (read from the end of the log). */
  tail?: number;
  /** Only the first N events. */
  limit?: number;
}

/**
 * `keel sessions events ID [--tail N | --limit N] [--follow]`: JSONL with --json, a compact line per
 * event otherwise (invisible characters in it shown as `\u` escapes, see `visibleJson`). The log is
 * read line by line and printed as the output takes it, so a log of any size (a repository can commit
 * one) is printed with bounded memory; a line longer than MAX_LOG_LINE_BYTES is not read: it is
 * reported on stderr as skipped, with its byte offset.
 */
export async function sessionsEvents(ctx: CliContext, id: string, opts: SessionEventsOptions): Promise<void> {
  if (opts.tail !== undefined && opts.limit !== undefined) throw new UsageError("Give --tail N (the last N events) or --limit N (the first N), not both.");
  if (opts.limit !== undefined && opts.follow)
    throw new UsageError(
      "--limit N prints the first N events and stops; --follow keeps printing new ones. Give one of them (--tail N --follow prints the last N, then new ones).",
    );
  const dir = resolveWorkspace(ctx.globals().cwd, ctx.io.env).stateDir;
  await readSessionMeta(dir, id);
  const paths = sessionPaths(dir, id);
  const out = new Output(ctx);
  const show = async (item: EventLogItem): Promise<boolean> => ("skipped" in item ? (out.skipped(item, paths.events), true) : out.event(item.event));
  let from = 0;
  if (opts.tail !== undefined) {
    // While the session runs, its log's last line may be half written: followed, it is printed once whole.
    const running = () => {
      const owner = lockOwner(paths.lock);
      return owner !== undefined && isAlive(owner);
    };
    const last = lastEvents(paths.events, opts.tail, opts.follow === true && running());
    for (const item of last.items) if (!(await show(item))) return;
    from = last.end;
  } else if (!opts.follow) {
    let printed = 0;
    for (const item of logEvents(paths.events)) {
      if (!(await show(item))) return;
      if ("event" in item && ++printed === opts.limit) return;
    }
    return;
  }
  if (opts.follow) await follow(ctx, paths, from, show);
}

/**
 * The last `n` events of a log, read from its end (with the lines over the limit passed on the way, in
 * file order), and the offset where what they were read from ends. With `whole` (the session runs), a last
 * line without a newline (being written) is left out and the offset is where it starts: following the
 * log prints it once it is whole; without, it counts as it is and the offset is the log's end.
 */
function lastEvents(file: string, n: number, whole: boolean): { items: EventLogItem[]; end: number } {
  const items: EventLogItem[] = [];
  let events = 0;
  let end: number | undefined;
  for (const line of logLines(file, { backward: true })) {
    if (end === undefined) {
      // the first line read backwards is what follows the log's last newline: nothing, or a line not ended yet
      end = whole ? line.offset : line.offset + ("skipped" in line ? line.bytes : line.line.length);
      if (whole) continue;
    }
    const item = parsed(line);
    if (!item) continue;
    // Pushed last first and turned round once: putting each at the front moved all the others (`--tail 200000` took 23 s).
    items.push(item);
    if ("event" in item && ++events === n) break;
  }
  return { items: items.reverse(), end: end ?? 0 };
}

/** Prints events from byte `from` of the session's log as it grows, until the session's process stops (or Ctrl-C). */
async function follow(ctx: CliContext, paths: ReturnType<typeof sessionPaths>, from: number, show: (item: EventLogItem) => Promise<boolean>): Promise<void> {
  const splitter = new LineSplitter(MAX_LOG_LINE_BYTES, from);
  let fed = from;
  // `last`: the session's process has stopped, so a last line without a newline stays as it is (printed if it parses).
  const drain = async (last = false): Promise<boolean> => {
    const log = openLog(paths.events);
    if (!log) return true;
    try {
      if (log.size <= fed && !last) return true;
      // whole lines only: a line being written is kept in the splitter until its newline comes
      for (const item of readLinesFrom(log.fd, Math.min(fed, log.size), log.size, { splitter, torn: last })) {
        const shown = parsed(item);
        if (shown && !(await show(shown))) return false;
      }
      fed = log.size;
      return true;
    } finally {
      closeSync(log.fd);
    }
  };
  for (;;) {
    if (!(await drain())) return;
    const owner = lockOwner(paths.lock);
    if (owner === undefined || !isAlive(owner) || ctx.signal.aborted) break;
    await sleep(150, undefined, { signal: ctx.signal }).catch(() => undefined);
  }
  await drain(true);
}

/** A line as an event (undefined for an empty, torn or invalid line: skipped, as on a first read). */
function parsed(item: LogItem): EventLogItem | undefined {
  if ("skipped" in item) return item;
  if (!item.line.length) return undefined;
  try {
    return { event: JSON.parse(item.line.toString("utf8")), offset: item.offset };
  } catch {
    return undefined;
  }
}

/** Where `keel sessions events` prints: stdout as fast as it takes it (waiting when it is full), reports on stderr. */
class Output {
  private closed = false;

  constructor(private readonly ctx: CliContext) {
    const stop = () => {
      this.closed = true;
    };
    ctx.io.stdout.once("error", stop);
    ctx.io.stdout.once("close", stop);
  }

  /** Prints one event; false when nothing more can be printed (the reader went away, or Ctrl-C). */
  async event(e: object): Promise<boolean> {
    const json = this.ctx.globals().json;
    let line: string;
    if (json) line = printedJson(e, this.ctx.io.env) + "\n";
    else {
      const { ts, type, sessionId: _s, ...rest } = e as { ts?: unknown; type?: unknown; sessionId?: unknown };
      line = terminalText(`${timeOf(ts)} ${String(type).padEnd(18)} ${visibleJson(rest)}`) + "\n";
    }
    return this.write(line);
  }

  /** Reports a line too long to read (on stderr: stdout keeps its format). */
  skipped(item: SkippedLine, file: string): void {
    this.ctx.io.stderr.write(
      `keel: skipped the line at byte ${item.offset} of ${terminalText(file)}: ${item.bytes} bytes, more than keel reads of one event (${MAX_LOG_LINE_BYTES / 2 ** 20} MiB). keel writes no line that long: the log was edited or not written by keel.\n`,
    );
  }

  private async write(text: string): Promise<boolean> {
    const stdout = this.ctx.io.stdout;
    if (this.closed || this.ctx.signal.aborted) return false;
    if (stdout.write(text)) return true;
    // full: wait until it takes more (or goes away, or Ctrl-C)
    await new Promise<void>((resolve) => {
      const done = () => {
        stdout.off("drain", done);
        stdout.off("close", done);
        this.ctx.signal.removeEventListener("abort", done);
        resolve();
      };
      stdout.on("drain", done);
      stdout.on("close", done);
      this.ctx.signal.addEventListener("abort", done);
    });
    return !this.closed && !this.ctx.signal.aborted;
  }
}

/** The time of day of an event's `ts`, as the compact form prints it. */
function timeOf(ts: unknown): string {
  const date = new Date(Number(ts));
  return Number.isNaN(date.getTime()) ? "--:--:--.---" : date.toISOString().slice(11, 23);
}
