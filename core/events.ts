import { existsSync, statSync } from "node:fs";
import { StateError, errorMessage } from "./errors.js";
import { EventLogAppender } from "./event-log-appender.js";
import { logEvents } from "./event-log.js";
import { storageMessage } from "./state/storage-problem.js";
import type { EventInput, EventSink, KeelEvent } from "./types.js";

/** Pending text at which events are written at the end of the turn instead of at the end of the commit window. */
const COMMIT_NOW_CHARS = 64 * 1024;
/**
 * How long `commit` lets events of calls that ended wait in memory: calls in that window share one
 * `write` (a `write` costs ~3 µs and sequential MCP calls come every ~0.15 ms; bench/README.md).
 */
export const COMMIT_WITHIN_MS = 5;

/**
 * Appends events as JSON lines (`JSON.stringify` of each event, `ts` first), buffered in memory
 * and written with one synchronous `write` per `flush`. An event is serialized at the end of the
 * event-loop turn it was emitted in (`setImmediate`), or by an earlier `flush`: after the work that
 * follows it in that turn (e.g. the next request to an MCP server) has started, so that work does
 * not wait for the log (bench/README.md, "Issue 14"). Emitters therefore never change an event
 * after emitting it. Write policy (README, "Events"): the pipeline flushes before executing a tool
 * that is not read-only (so a side effect is never unrecorded), sessions flush (and fsync) at step
 * and turn boundaries, and a call that ends `commit`s: its events are written within
 * COMMIT_WITHIN_MS (at the end of the turn past 64 KiB), together with whatever else ended
 * meanwhile. Pending events are also written when the process exits. Lines are appended whole or
 * not at all, and the file is keel's own (EventLogAppender): a symlinked folder on its way under
 * `.keel` is refused (StateError from `flush`).
 */
export class JsonlEventSink implements EventSink {
  /** The open file, from the first write until `close`. */
  private log: EventLogAppender | undefined;
  /** Bytes were written since the last fsync. */
  private unsynced = false;
  /** Lines not written yet (each ending in "\n"). */
  private text = "";
  /** Events emitted in this event-loop turn, not serialized yet (see the class comment). */
  private queued: EventInput[] = [];
  /** The scheduled serialization of `queued`, if any. */
  private serializer: NodeJS.Immediate | undefined;
  private readonly onSerialize = () => {
    this.serializer = undefined;
    this.serialize();
    // A long run of calls must not pile events up: past 64 KiB pending, written at the end of this turn.
    if (this.text.length < COMMIT_NOW_CHARS) return;
    try {
      this.flush(false);
    } catch {
      // Kept pending, as in onCommit.
    }
  };
  /** The scheduled `commit` write, if any. */
  private commitTimer: NodeJS.Timeout | undefined;
  /** The exit handler is installed (from the first `commit` or write until `close`). */
  private exitHooked = false;
  private readonly onCommit = () => {
    this.commitTimer = undefined;
    try {
      this.flush(false);
    } catch {
      // Kept pending: the next flush (before a tool with side effects, or at 64 KiB) retries and
      // reports the error to its caller instead of crashing the process from a tick.
    }
  };
  /** The shared write `flushed()` callers wait for, while one is scheduled. */
  private barrier: { promise: Promise<void>; resolve(): void; reject(error: unknown): void } | undefined;
  private readonly onBarrier = () => {
    const barrier = this.barrier!;
    this.barrier = undefined;
    try {
      this.flush();
      barrier.resolve();
    } catch (error) {
      barrier.reject(error);
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
   * flushes before a tool with side effects survives a machine crash). `listener` also receives each
   * event as it is buffered (an embedding program's event callback); one that throws is ignored.
   */
  constructor(
    readonly file: string,
    private readonly onOpen?: () => void,
    private readonly syncOnFlush = false,
    private readonly listener?: (event: KeelEvent) => void,
  ) {}

  /**
   * Buffers one event, to be serialized at the end of this event-loop turn (the caller must not
   * change it afterwards); `ts` defaults to now (and then comes first). With a listener, it is
   * serialized at once, then the listener sees it (frozen).
   */
  emit(event: EventInput): void {
    const stamped = event.ts === undefined ? { ts: Date.now(), ...event } : event;
    this.queued.push(stamped);
    this.serializer ??= setImmediate(this.onSerialize);
    if (this.listener) {
      // Serialized before the listener sees it (nested objects too): it may read the event, never change the record.
      this.serialize();
      Object.freeze(stamped);
      try {
        this.listener(stamped as KeelEvent);
      } catch {
        // a listener only watches: its failure must not change what keel records or does
      }
    }
  }

  /**
   * Writes buffered events soon: within COMMIT_WITHIN_MS, or at the end of this turn past 64 KiB
   * pending (a long run of calls must not pile events up), or earlier when something flushes or the
   * process exits. Calls that end in that window share one `write`.
   */
  commit(): void {
    if (this.commitTimer !== undefined || (this.text === "" && this.queued.length === 0)) return;
    this.hookExit();
    this.commitTimer = setTimeout(this.onCommit, COMMIT_WITHIN_MS);
    // The timer never keeps a process alive: the exit handler writes what is pending.
    this.commitTimer.unref();
  }

  /**
   * Resolves once the events buffered so far are written (and fsynced with `syncOnFlush`), with one
   * write after the current burst of synchronous work and microtasks: calls that start together
   * (concurrent calls of a `keel mcp serve` or an embedding program) wait for one write (and one
   * fsync) instead of one each. Rejects with the write's error (the events stay pending).
   */
  flushed(): Promise<void> {
    if (!this.barrier) {
      let resolve!: () => void;
      let reject!: (error: unknown) => void;
      const promise = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      this.barrier = { promise, resolve, reject };
      process.nextTick(this.onBarrier);
    }
    return this.barrier.promise;
  }

  /**
   * Writes buffered events to the file now (creating it on first use): they survive a crash of this
   * process. With `durable` (default: `syncOnFlush`), also fsyncs (they survive a crash of the machine).
   */
  flush(durable = this.syncOnFlush): void {
    this.serialize();
    if (this.text === "") {
      if (durable && this.unsynced && this.log !== undefined) {
        this.log.sync();
        this.unsynced = false;
      }
      return;
    }
    try {
      this.log ??= this.open();
      const failed = this.log.append(this.text);
      if (failed !== undefined) {
        this.text = failed.rest;
        throw failed.error;
      }
      this.text = "";
      if (durable) this.log.sync();
    } catch (error) {
      if (error instanceof StateError) throw error;
      throw new StateError(`Could not write keel's event log ${this.file}: ${storageMessage(error, this.file)}`, this.file, { cause: error });
    }
    this.unsynced = !durable;
  }

  /** Opens the log for appending (creating `.keel/` through `onOpen`), ending a torn last line. */
  private open(): EventLogAppender {
    this.onOpen?.();
    const log = EventLogAppender.open(this.file);
    this.hookExit();
    return log;
  }

  /** Size of the file with everything written so far (buffered events not counted). */
  position(): number {
    if (this.log !== undefined) return this.log.size;
    return existsSync(this.file) ? statSync(this.file).size : 0;
  }

  /** Flushes and closes the file. */
  close(): void {
    try {
      this.flush();
    } finally {
      this.release();
    }
  }

  /** Stops the timers, closes the file and removes the exit handler (what is still pending is dropped). */
  private release(): void {
    if (this.commitTimer !== undefined) clearTimeout(this.commitTimer);
    this.commitTimer = undefined;
    if (this.serializer !== undefined) clearImmediate(this.serializer);
    this.serializer = undefined;
    this.log?.close();
    if (this.exitHooked) process.off("exit", this.onExit);
    this.exitHooked = false;
    this.log = undefined;
  }

  /** Appends the queued events to the pending text; one that cannot be serialized becomes a `state_error` line saying so. */
  private serialize(): void {
    if (this.queued.length === 0) return;
    const queued = this.queued;
    this.queued = [];
    for (const event of queued) {
      let line: string;
      try {
        line = JSON.stringify(event);
      } catch (error) {
        // e.g. a BigInt or a cycle from a hook's data: recorded as lost, never thrown from a later tick
        line = JSON.stringify({ ts: event.ts, type: "state_error", message: `keel could not record the ${String(event.type)} event: ${errorMessage(error)}` });
      }
      this.text += line + "\n";
    }
  }

  private hookExit(): void {
    if (this.exitHooked) return;
    this.exitHooked = true;
    process.on("exit", this.onExit);
  }
}

/**
 * A sink whose `emit` is `emit` (which records into `sink` and may also watch or forward the event)
 * and whose `flush`, `commit` and `flushed` are `sink`'s, with the same fall-backs the pipeline uses
 * (a sink without `commit` or `flushed` is flushed).
 */
export function sinkWithEmit(sink: EventSink, emit: (event: EventInput) => void): EventSink {
  return {
    emit,
    flush: (durable) => sink.flush(durable),
    commit: () => (sink.commit ? sink.commit() : sink.flush()),
    flushed: () => (sink.flushed ? sink.flushed() : Promise.resolve(sink.flush())),
  };
}

/** A sink that keeps events in memory (for benchmarks, nested runs and tests). */
export class MemoryEventSink implements EventSink {
  /** Every event so far, in order. */
  readonly events: KeelEvent[] = [];

  /** Records one event; one that already has `ts` is kept as given (not copied). */
  emit(event: EventInput): void {
    this.events.push(event.ts === undefined ? ({ ts: Date.now(), ...event } as KeelEvent) : (event as KeelEvent));
  }

  /** Forgets every event kept so far. */
  clear(): void {
    this.events.length = 0;
  }

  /** No-op. */
  flush(): void {}
}

/**
 * Reads a JSONL event file from byte `from` (default: the start) into memory; a torn or invalid line
 * (e.g. after a crash) is skipped, never fatal, and so is a line over MAX_LOG_LINE_BYTES. Only a
 * regular file is read, opened without blocking (a planted FIFO yields no events instead of hanging).
 * For a log that may be large (a session's, which a repository can commit), iterate `logEvents` instead.
 */
export function readEvents(file: string, from = 0): KeelEvent[] {
  const out: KeelEvent[] = [];
  for (const item of logEvents(file, { from })) if ("event" in item) out.push(item.event);
  return out;
}
