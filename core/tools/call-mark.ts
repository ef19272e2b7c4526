import { randomBytes } from "../lazy-crypto.js";
import { readdir, readFile } from "node:fs/promises";

/**
 * The variable that marks every process one bash call starts: its value lists the marks of the calls
 * it runs in (`a1b2…:c3d4…` for a `keel` run inside a bash call), so a process that left the call's
 * process group (`setsid cmd &`, a daemon's double fork) can still be found by its environment.
 */
export const CALL_MARK = "KEEL_CALL";

/** A fresh mark for one call. */
export function newCallMark(): string {
  return randomBytes(12).toString("hex");
}

/** The value of `KEEL_CALL` for a call marked `mark` inside `env` (which may already be inside a call). */
export function callMarkValue(env: Record<string, string | undefined>, mark: string): string {
  const outer = env[CALL_MARK];
  return outer ? `${outer}:${mark}` : mark;
}

/** Most scans of /proc one kill makes: each kills what the last one found, until one finds none. */
const MAX_SCANS = 20;

/**
 * Kills (SIGKILL) every process whose environment carries the call's mark, scanning /proc again until
 * a scan finds none (a process that forked while it was killed is found by the next scan), at most
 * `MAX_SCANS` times. Only the kill path (a timeout, a cancel) calls it: it costs a walk of /proc.
 * Linux only (elsewhere it finds nothing). Only processes of this user can be read, and a process is
 * killed only when its environment holds the mark exactly; one that replaced its environment
 * (`env -i`, `sudo`) cannot be found this way. Returns how many processes it signalled.
 */
export async function killMarked(mark: string): Promise<number> {
  if (process.platform !== "linux") return 0;
  let killed = 0;
  for (let scan = 0; scan < MAX_SCANS; scan++) {
    const found = await markedPids(mark);
    if (!found.length) break;
    for (const pid of found) {
      try {
        process.kill(pid, "SIGKILL");
        killed++;
      } catch {
        // already gone
      }
    }
  }
  return killed;
}

/** The processes whose environment has `KEEL_CALL` holding `mark` among its marks. */
async function markedPids(mark: string): Promise<number[]> {
  const entries = await readdir("/proc").catch(() => [] as string[]);
  const out: number[] = [];
  await Promise.all(
    entries.map(async (entry) => {
      if (!/^\d+$/.test(entry) || Number(entry) === process.pid) return;
      // Unreadable (another user's process, or gone) or a zombie (empty): not ours to kill.
      const environ = await readFile(`/proc/${entry}/environ`).catch(() => undefined);
      if (environ && carriesMark(environ, mark)) out.push(Number(entry));
    }),
  );
  return out;
}

/** Whether the NUL-separated environment block has `KEEL_CALL=…` with `mark` as one of its `:`-separated marks. */
export function carriesMark(environ: Buffer, mark: string): boolean {
  const prefix = `${CALL_MARK}=`;
  for (let start = 0; start < environ.length;) {
    let end = environ.indexOf(0, start);
    if (end === -1) end = environ.length;
    if (end - start > prefix.length && environ.toString("latin1", start, start + prefix.length) === prefix)
      return environ
        .toString("latin1", start + prefix.length, end)
        .split(":")
        .includes(mark);
    start = end + 1;
  }
  return false;
}
