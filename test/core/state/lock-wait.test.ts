import { execa } from "execa";
import { mkdirSync, rmSync, utimesSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { KEEL_BIN } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

describe("a state-file lock held by another process (real keel process)", () => {
  it("keel says on stderr what it waits for, then gets the lock once it is released; stdout stays the result", async () => {
    ws = makeWorkspace();
    // What proper-lockfile makes: a `FILE.lock` folder, kept fresh by its holder (this test) until keel has said it waits.
    // Ordered on keel's message, not on time: a busy machine only makes the wait longer.
    const lock = ws.path(".keel", "state", "tasks.json.lock");
    mkdirSync(lock, { recursive: true });
    const keel = execa(process.execPath, [KEEL_BIN, "task", "add", "write the docs", "--json"], {
      cwd: ws.root,
      env: ws.env,
      extendEnv: false,
      stdin: "ignore",
      reject: false,
      timeout: 120_000,
    });
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
});
