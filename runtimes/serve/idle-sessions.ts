/** Why a tracked session is closed by `IdleSessions`. */
export type SessionCloseReason = "idle" | "evicted";

/** One tracked session: requests in flight, and the timer that runs while there are none. */
interface Tracked {
  active: number;
  timer: NodeJS.Timeout | undefined;
  close: (reason: SessionCloseReason) => Promise<void>;
}

/**
 * Expires HTTP sessions no request has touched for `idleMs`: a client that went away without a
 * DELETE leaves a session whose SDK server and transport would otherwise live forever. The clock
 * runs only while the session has no request in flight (an open GET stream or a long tool call
 * keeps it alive) and restarts when the last one ends. The timers never keep the process alive.
 * Sessions are kept in order of last use, so the one idle longest can be closed to make room.
 */
export class IdleSessions {
  private readonly sessions = new Map<string, Tracked>();

  constructor(private readonly idleMs: number) {}

  /** How many sessions are tracked. */
  get size(): number {
    return this.sessions.size;
  }

  /** Starts tracking a new session; `close` ends its server and transport (it must also call `forget`). */
  add(id: string, close: (reason: SessionCloseReason) => Promise<void>): void {
    const tracked: Tracked = { active: 0, timer: undefined, close };
    this.sessions.set(id, tracked);
    this.arm(id, tracked);
  }

  /** Marks a request on `id` as started; call the returned function once its response has closed. */
  begin(id: string): () => void {
    const tracked = this.sessions.get(id);
    if (!tracked) return () => undefined;
    tracked.active++;
    clearTimeout(tracked.timer);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      tracked.active--;
      if (tracked.active > 0 || this.sessions.get(id) !== tracked) return;
      // Last used now: to the end of the order.
      this.sessions.delete(id);
      this.sessions.set(id, tracked);
      this.arm(id, tracked);
    };
  }

  /** Stops tracking `id` (closed by the client, by expiry or at shutdown). */
  forget(id: string): void {
    clearTimeout(this.sessions.get(id)?.timer);
    this.sessions.delete(id);
  }

  /** Closes the session idle longest (no request in flight); false when every session has one. */
  async evictIdlest(): Promise<boolean> {
    for (const [id, tracked] of this.sessions) {
      if (tracked.active > 0) continue;
      this.forget(id);
      await tracked.close("evicted").catch(() => undefined);
      return true;
    }
    return false;
  }

  private arm(id: string, tracked: Tracked): void {
    clearTimeout(tracked.timer);
    tracked.timer = setTimeout(() => {
      this.forget(id);
      void tracked.close("idle").catch(() => undefined);
    }, this.idleMs);
    tracked.timer.unref();
  }
}
