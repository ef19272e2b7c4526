import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

/** The pid of a process that has exited. */
function deadPid(): number {
  return Number(execFileSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }));
}

describe("temp files a killed keel left while writing (real CLI)", () => {
  it("config set --source project removes keel's own stale temp file of keel.config.json and nothing else, leaving no temp of its own", async () => {
    ws = makeWorkspace({ "keel.config.json": { permissions: { deny: [] } } }, { git: true });
    const dead = deadPid();
    const stale = `.keel.config.json.keel-tmp-${dead}-0123456789ab`;
    // Not certainly keel's stale files: a live writer's, an older keel's (write-file-atomic names), look-alikes, a link.
    const kept = [
      `.keel.config.json.keel-tmp-${process.pid}-0123456789ab`,
      "keel.config.json.1234abcd",
      `.keel.config.json.keel-tmp-${dead}-notes`,
      `.other.json.keel-tmp-${dead}-0123456789ab`,
    ];
    for (const name of [stale, ...kept]) writeFileSync(ws.path(name), '{"half": ');
    mkdirSync(ws.path("outside"));
    writeFileSync(ws.path("outside", "keep.txt"), "keep\n");
    symlinkSync(ws.path("outside", "keep.txt"), ws.path(`.keel.config.json.keel-tmp-${dead}-ba9876543210`));
    kept.push(`.keel.config.json.keel-tmp-${dead}-ba9876543210`);

    const set = await runKeel(["--yes", "config", "set", "permissions.deny", '["task_*"]', "--source", "project"], { cwd: ws.root, env: ws.env });
    expect(set.exitCode, set.stderr).toBe(0);
    expect(JSON.parse(ws.read("keel.config.json")).permissions.deny).toEqual(["task_*"]);
    const left = readdirSync(ws.root).filter((n) => n.includes("json."));
    expect(left.sort()).toEqual([...kept].sort());
    expect(readFileSync(ws.path("outside", "keep.txt"), "utf8")).toBe("keep\n");
  });

  it("state writes name their temp files .<name>.keel-tmp-<pid>-<random> and sweep the stale ones (task add)", async () => {
    ws = makeWorkspace();
    mkdirSync(ws.path(".keel", "state"), { recursive: true });
    const stale = `.tasks.json.keel-tmp-${deadPid()}-00000000ffff`;
    writeFileSync(ws.path(".keel", "state", stale), "{");
    const add = await runKeel(["task", "add", "write the docs"], { cwd: ws.root, env: ws.env });
    expect(add.exitCode, add.stderr).toBe(0);
    expect(readdirSync(ws.path(".keel", "state")).filter((n) => n.includes("tasks.json"))).toEqual(["tasks.json"]);
  });
});
