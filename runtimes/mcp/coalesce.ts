/**
 * Wraps `run` so that triggers arriving while one run is scheduled or in flight coalesce: a burst
 * of triggers (e.g. several `notifications/tools/list_changed` in a row) causes one run, and
 * triggers during a run cause at most one more run after it. The returned function never throws;
 * `run`'s failures go to `onError`.
 */
export function coalesce(run: () => Promise<void>, onError: (error: unknown) => void): () => void {
  let scheduled = false;
  let running = false;
  let again = false;
  const start = (): void => {
    scheduled = false;
    running = true;
    run()
      .catch(onError)
      .finally(() => {
        running = false;
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
    // Let the rest of a burst (messages already read from the transport) arrive first.
    setImmediate(start);
  };
  return schedule;
}
