import { execa } from "execa";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { acquireSessionLock, isAlive } from "../../../core/session/session-lock.js";

// Children run the built code (dist/), like the real CLI.
const distLock = fileURLToPath(new URL("../../../dist/core/session/session-lock.js", import.meta.url));
const fixture = fileURLToPath(new URL("./fixtures/hold-session-lock.mjs", import.meta.url));

describe("a session's writer lock and a killed owner", () => {
  it.skipIf(process.platform !== "linux")("a zombie owner (exited, not reaped by its parent) counts as dead: its lock is taken over", async () => {
    // The forked child exits at once and its parent never waits for it (perl reaps nothing unasked): a zombie. Not `sh -c
    // "sleep 0 & …; exec sleep 30"`: under load the shell could reap the child before its exec, and no zombie was left.
    const parent = spawn("perl", ["-e", '$| = 1; my $pid = fork(); if ($pid == 0) { exit 0 } print "$pid\n"; sleep 30'], {
      stdio: ["ignore", "pipe", "ignore"],
    });
    const dir = mkdtempSync(join(tmpdir(), "keel-lock-"));
    try {
      const pid = Number(await new Promise<string>((resolve) => parent.stdout.once("data", (d) => resolve(String(d).trim()))));
      // poll until it has exited (a generous bound, not a timing assertion)
      for (let i = 0; i < 600 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 50));
      expect(() => process.kill(pid, 0)).not.toThrow(); // the pid still exists…
      expect(isAlive(pid)).toBe(false); // …as a zombie
      const file = join(dir, "writer.lock");
      writeFileSync(file, JSON.stringify({ pid, since: new Date().toISOString() }));
      const lock = await acquireSessionLock(file, "s-zombie");
      lock.release();
      expect(isAlive(process.pid)).toBe(true);
    } finally {
      parent.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a session's writer lock from before the machine restarted", () => {
  it.skipIf(process.platform !== "linux")("is taken over even when its pid now belongs to a live process; a lock of this boot still holds", async () => {
    const dir = mkdtempSync(join(tmpdir(), "keel-lock-boot-"));
    try {
      const file = join(dir, "writer.lock");
      // after a restart the pid a crashed keel had may belong to any process: here, this one
      writeFileSync(file, JSON.stringify({ pid: process.pid, since: "2026-01-01T00:00:00.000Z", boot: "00000000-0000-0000-0000-000000000000" }));
      const lock = await acquireSessionLock(file, "s-reboot"); // old code: "Session s-reboot is busy: keel process … is running it", for as long as that process lives
      await expect(acquireSessionLock(file, "s-reboot")).rejects.toThrow(`Session s-reboot is busy: keel process ${process.pid} is running it`);
      lock.release();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a session's writer lock a repository committed", () => {
  it.skipIf(process.platform !== "linux")('has no owner unless it names this boot: {"pid": 1} and a folder are taken over', async () => {
    const dir = mkdtempSync(join(tmpdir(), "keel-lock-committed-"));
    try {
      const file = join(dir, "writer.lock");
      // pid 1 is always alive: the old code said "busy: keel process 1 is running it" for good
      writeFileSync(file, JSON.stringify({ pid: 1, since: "2026-01-01T00:00:00.000Z" }));
      (await acquireSessionLock(file, "s-committed")).release();
      // a folder at the lock's path (the old code: a raw EISDIR error)
      mkdirSync(join(file, "x"), { recursive: true });
      writeFileSync(join(file, "x", "y"), "z");
      const lock = await acquireSessionLock(file, "s-folder");
      await expect(acquireSessionLock(file, "s-folder")).rejects.toThrow(`Session s-folder is busy: keel process ${process.pid} is running it`);
      lock.release();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Resolves once `done()` holds, polling every 5 ms (bounded by the test's timeout). */
async function poll(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 5));
}

describe("a crashed session's lock taken over by several processes at once", () => {
  it("exactly one of them gets it; the others are told the session is busy", async () => {
    expect(existsSync(distLock), "run `npx tsc -p tsconfig.json` first").toBe(true);
    const dir = mkdtempSync(join(tmpdir(), "keel-lock-race-"));
    try {
      // a pid that certainly belonged to a process that is gone: the crashed owner
      const dead = spawn(process.execPath, ["-e", ""]);
      await new Promise((resolve) => dead.once("exit", resolve));
      // each round is a race; the old takeover (look, then remove, unlocked) let two through in about half of them
      for (let round = 0; round < 6; round++) {
        const file = join(dir, `writer-${round}.lock`);
        const go = join(dir, `go-${round}`);
        const release = join(dir, `release-${round}`);
        writeFileSync(file, JSON.stringify({ pid: dead.pid, since: new Date().toISOString() }));
        const children = Array.from({ length: 6 }, () => execa(process.execPath, [fixture, distLock, file, go, release], { timeout: 60_000 }));
        // each child's output so far; it says "ready\n", then one line: GOT or BUSY
        const outs = children.map((child) => {
          const out = { text: "" };
          child.stdout!.on("data", (d: Buffer) => (out.text += String(d)));
          return out;
        });
        const linesSaid = (n: number) => outs.every((o) => o.text.split("\n").length > n);
        const ready = poll(() => linesSaid(1));
        const lines = poll(() => linesSaid(2));
        await ready;
        writeFileSync(go, "");
        await lines; // every child has either got the lock (and holds it) or been refused
        writeFileSync(release, "");
        await Promise.all(children);
        const said = outs.map((o) => o.text.split("\n")[1]!);
        expect(
          said.filter((s) => s === "GOT"),
          said.join("\n"),
        ).toHaveLength(1);
        for (const s of said.filter((s) => s !== "GOT")) expect(s).toMatch(/^BUSY Session s-race is busy: keel process \d+ is running it/);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
