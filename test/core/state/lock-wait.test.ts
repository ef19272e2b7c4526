import { mkdirSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { runKeelProcess } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

describe("a lock left by a killed keel (real process)", () => {
  it("keel says on stderr what it waits for, then takes the lock over and succeeds; stdout stays the result", async () => {
    ws = makeWorkspace();
    // What proper-lockfile leaves when its keel is killed: an empty, fresh `FILE.lock` folder.
    mkdirSync(ws.path(".keel", "state", "tasks.json.lock"), { recursive: true });
    const add = await runKeelProcess(["task", "add", "write the docs", "--json"], { cwd: ws.root, env: ws.env });
    expect(add.stderr).toContain(
      `keel: waiting for ${ws.path(".keel", "state", "tasks.json.lock")} (held by another keel process, or left by one that was killed; taken over after 10 s)`,
    );
    expect(add.exitCode).toBe(0);
    expect(add.stdout).not.toContain("waiting for");
    expect(JSON.stringify(add.json())).toContain("write the docs");
    expect(ws.read(".keel/state/tasks.json")).toContain("write the docs");
  });
});
