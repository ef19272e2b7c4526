/**
 * A server's start-up deadline that stops counting while keel waits for the user (a login in the
 * browser): `race` rejects with "<step> timed out after <ms> ms" once the counted time passes the
 * budget; time inside `excluding` is not counted. Holds state for one start only.
 */
export class StartDeadline {
  private used = 0;
  private since = performance.now();
  private paused = 0;
  private readonly expiries = new Set<() => void>();

  constructor(readonly ms: number) {}

  /** Milliseconds of the budget left now. */
  remaining(): number {
    return this.ms - this.used - (this.paused ? 0 : performance.now() - this.since);
  }

  /** Waits for `p` without counting the time against the deadline (nested waits are fine). */
  async excluding<T>(p: Promise<T>): Promise<T> {
    if (this.paused++ === 0) {
      this.used += performance.now() - this.since;
      for (const expire of this.expiries) expire();
    }
    try {
      return await p;
    } finally {
      if (--this.paused === 0) {
        this.since = performance.now();
        for (const expire of this.expiries) expire();
      }
    }
  }

  /** `p`, or a rejection when the deadline passes first (or `signal` aborts); `step` names what timed out. */
  race<T>(p: Promise<T>, step: string, signal?: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      // Re-armed whenever a wait for the user starts (no timer) or ends (a timer for what is left).
      const arm = () => {
        clearTimeout(timer);
        if (!this.paused) timer = setTimeout(() => reject(new Error(`${step} timed out after ${this.ms} ms`)), Math.max(0, this.remaining()));
      };
      const onAbort = () => reject(new Error(`${step} was cancelled`));
      this.expiries.add(arm);
      arm();
      signal?.addEventListener("abort", onAbort, { once: true });
      p.then(resolve, reject).finally(() => {
        clearTimeout(timer);
        this.expiries.delete(arm);
        signal?.removeEventListener("abort", onAbort);
      });
    });
  }
}
