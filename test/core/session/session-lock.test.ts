import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { acquireSessionLock, isAlive } from "../../../core/session/session-lock.js";

describe("a session's writer lock and a killed owner", () => {
  it.skipIf(process.platform !== "linux")("a zombie owner (exited, not reaped by its parent) counts as dead: its lock is taken over", async () => {
    // `sleep 0 &` exits at once; its parent then becomes `sleep 30` (exec), which never reaps it: a zombie
    const parent = spawn("sh", ["-c", "sleep 0 & echo $!; exec sleep 30"], { stdio: ["ignore", "pipe", "ignore"] });
    const dir = mkdtempSync(join(tmpdir(), "keel-lock-"));
    try {
      const pid = Number(await new Promise<string>((resolve) => parent.stdout.once("data", (d) => resolve(String(d).trim()))));
      // poll until it has exited (a generous bound, not a timing assertion)
      for (let i = 0; i < 600 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 50));
      expect(() => process.kill(pid, 0)).not.toThrow(); // the pid still exists…
      expect(isAlive(pid)).toBe(false); // …as a zombie
      const file = join(dir, "writer.lock");
      writeFileSync(file, JSON.stringify({ pid, since: new Date().toISOString() }));
      const lock = acquireSessionLock(file, "s-zombie");
      lock.release();
      expect(isAlive(process.pid)).toBe(true);
    } finally {
      parent.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
