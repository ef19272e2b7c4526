import { setMaxListeners } from "node:events";
import { UsageError } from "./errors.js";

/**
 * What a program runs on a host while it is open (an embedding program's `runAgent` turns and
 * `callTool` calls): each gets a signal that aborts when the caller's does or the host closes, and
 * `close()` aborts them all and waits until each has ended, so a closed host has no turn still
 * holding its session's lock, starting commands or writing events.
 */
export class OpenWork {
  private readonly closing = new AbortController();
  private readonly running = new Set<Promise<unknown>>();

  constructor() {
    // One listener per piece of work in flight: many at once is no leak.
    setMaxListeners(0, this.closing.signal);
  }

  /** Runs `work` with a signal that aborts with `signal` or on close. Throws a `UsageError` once closing has begun. */
  run<T>(signal: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.closing.signal.aborted) throw new UsageError("This keel host is closed: open another with createHost().");
    const controller = new AbortController();
    const abort = (): void => controller.abort(signal?.aborted ? signal.reason : this.closing.signal.reason);
    if (signal?.aborted) abort();
    else {
      if (signal) setMaxListeners(0, signal);
      signal?.addEventListener("abort", abort, { once: true });
      this.closing.signal.addEventListener("abort", abort, { once: true });
    }
    const done = (async () => {
      try {
        return await work(controller.signal);
      } finally {
        signal?.removeEventListener("abort", abort);
        this.closing.signal.removeEventListener("abort", abort);
      }
    })();
    const tracked: Promise<unknown> = done.then(
      () => this.running.delete(tracked),
      () => this.running.delete(tracked),
    );
    this.running.add(tracked);
    return done;
  }

  /** Aborts the work in flight and waits until each piece has ended. */
  async close(): Promise<void> {
    this.closing.abort(new Error("The keel host was closed."));
    await Promise.all([...this.running]);
  }
}
