/**
 * Wraps `run` so that triggers arriving while one run is scheduled or in flight coalesce: a burst
 * of triggers (e.g. several `notifications/tools/list_changed` in a row) causes one run, and
 * triggers during a run cause at most one more run after it. A run starts at least `minGapMs`
 * after the previous one ended, so a source that triggers again on every run (a server answering
 * each `tools/list` with another `list_changed`) gets one run per `minGapMs`, not a busy loop. The
 * returned function never throws; `run`'s failures go to `onError`. A delayed run does not keep the process alive.
 */
export function coalesce(run: () => Promise<void>, onError: (error: unknown) => void, minGapMs = 0): () => void {
  let scheduled = false;
  let running = false;
  let again = false;
  let lastEnd = -Infinity;
  const start = (): void => {
    scheduled = false;
    running = true;
    run()
      .catch(onError)
      .finally(() => {
        running = false;
        lastEnd = performance.now();
        if (again) {
          again = false;
          schedule();
        }
      });
  };
  const schedule = (): void => {
    if (scheduled) return;
    if (running) {
      again = true;
      return;
    }
    scheduled = true;
    const wait = lastEnd + minGapMs - performance.now();
    // Let the rest of a burst (messages already read from the transport) arrive first.
    if (wait <= 0) setImmediate(start);
    else setTimeout(start, wait).unref();
  };
  return schedule;
}
