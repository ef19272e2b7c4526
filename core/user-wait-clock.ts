/**
 * Measures time spent waiting for the user (an MCP elicitation answered on the terminal), so tool
 * timeouts can leave it out: a call's deadline moves by the user-wait time that passed while it ran.
 * Overlapping waits count once. One per host.
 */
export class UserWaitClock {
  private open = 0;
  private openedAt = 0;
  private total = 0;

  /** Starts a wait; the returned function ends it (idempotent). */
  begin(): () => void {
    if (this.open++ === 0) this.openedAt = performance.now();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (--this.open === 0) this.total += performance.now() - this.openedAt;
    };
  }

  /** Milliseconds spent waiting for the user since the host started, including a wait still open. */
  elapsed(): number {
    return this.open > 0 ? this.total + (performance.now() - this.openedAt) : this.total;
  }
}
