/** Something to tell when a caller's signal aborts. */
export interface AbortWatcher {
  stop(reason: unknown): void;
}

/**
 * Tells the calls running under a caller's AbortSignal when it aborts, with one listener per signal
 * instead of one per call: adding and removing a listener on an AbortSignal costs microseconds,
 * a Set costs nanoseconds, and long-lived signals (a whole agent session) see thousands of calls.
 */
export class AbortFanout {
  private readonly watchers = new WeakMap<AbortSignal, Set<AbortWatcher>>();

  /** Watches `signal` for `watcher` until `unwatch`. The signal must not be aborted yet. */
  watch(signal: AbortSignal, watcher: AbortWatcher): void {
    let set = this.watchers.get(signal);
    if (!set) {
      const created = new Set<AbortWatcher>();
      set = created;
      this.watchers.set(signal, created);
      signal.addEventListener(
        "abort",
        () => {
          // Live iteration: a watcher removed while others are stopped is not stopped.
          for (const w of created) w.stop(signal.reason);
          created.clear();
        },
        { once: true },
      );
    }
    set.add(watcher);
  }

  /** Stops watching `signal` for `watcher`. */
  unwatch(signal: AbortSignal, watcher: AbortWatcher): void {
    this.watchers.get(signal)?.delete(watcher);
  }
}
