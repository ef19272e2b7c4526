import { lstatSync, rmdirSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

/** How far ahead of the clock a lock's time must be to count as dated in the future (file systems round times). */
const AHEAD_MS = 2_000;
/** How often a lock dated in the future is looked at while keel waits for its holder to show itself. */
const POLL_MS = 250;

/**
 * Takes over a lock folder (proper-lockfile's `FILE.lock`) dated in the future, once it is known to be dead.
 * proper-lockfile counts a lock as stale when its time is `staleMs` behind the clock, so a lock left by a keel that was
 * killed before the clock was put back (NTP, a restored VM), or a folder dated ahead by whatever made it, held every
 * write of its file until the clock caught up (hours, years). Its age cannot be read from the clock, so it is
 * watched instead, on the monotonic clock: a live holder re-dates its lock every few seconds; one whose time has not
 * changed for `staleMs` is dead and removed (only while it is still the same empty folder with that time). Returns at
 * once when there is no such lock. Never throws.
 */
export async function clearFutureLock(lock: string, staleMs: number): Promise<void> {
  const seen = mtimeOf(lock);
  if (seen === undefined || seen <= Date.now() + AHEAD_MS) return;
  const until = performance.now() + staleMs;
  while (performance.now() < until) {
    await sleep(POLL_MS);
    if (mtimeOf(lock) !== seen) return; // re-dated by its holder, or gone: proper-lockfile decides from here
  }
  try {
    if (mtimeOf(lock) === seen) rmdirSync(lock);
  } catch {
    // not empty, or gone meanwhile: proper-lockfile decides
  }
}

/** The time of the folder at `lock` (ms), or undefined when there is none. */
function mtimeOf(lock: string): number | undefined {
  try {
    const stat = lstatSync(lock);
    return stat.isDirectory() ? stat.mtimeMs : undefined;
  } catch {
    return undefined;
  }
}
