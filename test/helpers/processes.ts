import { existsSync, readFileSync } from "node:fs";
import { expect } from "vitest";

/** True while `pid` is a live (not zombie) process. Linux /proc. */
export function alive(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return false;
  try {
    return readFileSync(stat, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
}

/** True once the process is gone (polls; the deadline is a safety net for a loaded machine). */
export async function waitDead(pid: number): Promise<boolean> {
  // A pid file read before its content was written gives 0: that proves nothing about the child.
  expect(Number.isInteger(pid) && pid > 0, `not a pid: ${pid}`).toBe(true);
  for (const end = Date.now() + 30_000; alive(pid) && Date.now() < end;) await new Promise((r) => setTimeout(r, 20));
  return !alive(pid);
}
