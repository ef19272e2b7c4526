import { execa } from "execa";
import { existsSync, mkdirSync, rmSync, utimesSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { updateJsonState } from "../../../core/state/json-file.js";
import { KEEL_BIN } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

/** `keel task add "write the docs" --json` as a real process in `w` (its timeout only a safety net). */
const taskAdd = (w: TempWorkspace) =>
  execa(process.execPath, [KEEL_BIN, "task", "add", "write the docs", "--json"], {
    cwd: w.root,
    env: w.env,
    extendEnv: false,
    stdin: "ignore",
    reject: false,
    timeout: 120_000,
  });

describe("a state-file lock held by another process (real keel process)", () => {
  it("keel says on stderr what it waits for, then gets the lock once it is released; stdout stays the result", async () => {
    ws = makeWorkspace();
    // What proper-lockfile makes: a `FILE.lock` folder, kept fresh by its holder (this test) until keel has said it waits.
    // Ordered on keel's message, not on time: a busy machine only makes the wait longer.
    const lock = ws.path(".keel", "state", "tasks.json.lock");
    mkdirSync(lock, { recursive: true });
    const keel = taskAdd(ws);
    let stderr = "";
    const said = new Promise<void>((resolve) =>
      keel.stderr!.on("data", (chunk: Buffer) => {
        stderr += String(chunk);
        if (stderr.includes("waiting for")) resolve();
      }),
    );
    const holder = setInterval(() => utimesSync(lock, new Date(), new Date()), 500);
    try {
      await Promise.race([said, keel]);
    } finally {
      clearInterval(holder);
      rmSync(lock, { recursive: true, force: true });
    }
    const add = await keel;
    expect(stderr).toContain(
      `keel: waiting for ${ws.path(".keel", "state", "tasks.json.lock")} (held by another keel process, or left by one that was killed; taken over after 10 s)`,
    );
    expect(add.exitCode, stderr).toBe(0);
    expect(String(add.stdout)).not.toContain("waiting for");
    expect(JSON.stringify(JSON.parse(String(add.stdout)))).toContain("write the docs");
    expect(ws.read(".keel/state/tasks.json")).toContain("write the docs");
  });

  it("a lock folder dated in the future (left by a killed keel before the clock was put back) is taken over once its time has stood still for 10 s", async () => {
    ws = makeWorkspace();
    const lock = ws.path(".keel", "state", "tasks.json.lock");
    mkdirSync(lock, { recursive: true });
    const future = new Date(Date.now() + 3600_000);
    utimesSync(lock, future, future);
    const add = await taskAdd(ws);
    expect(add.exitCode, add.stderr).toBe(0); // old code: exit 1 after ~20 s ("Could not lock …"), for the next hour
    expect(add.stderr).toContain("waiting for");
    expect(ws.read(".keel/state/tasks.json")).toContain("write the docs");
    expect(existsSync(lock)).toBe(false);
  });
});

describe("a state-file lock taken over while keel holds it", () => {
  it("keel says so, does not write the file and is not ended by it (proper-lockfile's default threw from a timer)", async () => {
    ws = makeWorkspace();
    const file = ws.path(".keel", "state", "counter.json");
    ws.write(".keel/state/counter.json", { n: 0 });
    const notices: string[] = [];
    const update = updateJsonState(
      file,
      { n: -1 },
      async (current) => {
        // Another process takes the lock over (its holder, this one, could not re-date it for 10 s: a machine that slept).
        rmSync(`${file}.lock`, { recursive: true });
        mkdirSync(`${file}.lock`);
        const other = new Date(Date.now() - 60_000); // a time that cannot be the holder's own, made in the same ms
        utimesSync(`${file}.lock`, other, other);
        // The holder finds out at its next re-dating of the lock (every 2 s).
        await vi.waitFor(() => expect(notices).toHaveLength(1), { timeout: 60_000, interval: 100 });
        return { value: { n: current.n + 1 }, result: current.n + 1 };
      },
      (line) => notices.push(line),
    );
    await expect(update).rejects.toThrow(/counter\.json was not written: another process took over its lock/);
    expect(notices[0]).toMatch(/another process took over .*counter\.json\.lock while this keel held it/);
    expect(JSON.parse(ws.read(".keel/state/counter.json"))).toEqual({ n: 0 });
    rmSync(`${file}.lock`, { recursive: true, force: true });
  });
});
