import type { Interface } from "node:readline/promises";

/**
 * A signal that aborts when `rl`'s terminal fails (EIO: it hung up, found as readline reads it or gives it back to
 * cooked mode): pass it to `rl.question`, which readline leaves pending when it closes on an error. The listener does
 * not close `rl` itself: closing gives the terminal back, which fails again on a hung-up one and would re-enter the
 * listener until the stack overflows (a crash instead of a cancelled question); the asker's `finally` closes it once.
 */
export function terminalFailure(rl: Interface): AbortSignal {
  const failed = new AbortController();
  rl.on("error", (error: unknown) => failed.abort(error));
  return failed.signal;
}
