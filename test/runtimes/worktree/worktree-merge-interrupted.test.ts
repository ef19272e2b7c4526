import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel, runKeelProcess } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

describe("keel worktree exit --action merge killed right after `git merge` (real process, real git)", () => {
  it("run again, it reports the files the merge brought, not 0", async () => {
    ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
    expect((await runKeel(["worktree", "enter", "wip"], { cwd: ws.root, env: ws.env })).exitCode).toBe(0);
    const wt = ws.path(".keel", "worktrees", "wip");
    writeFileSync(join(wt, "new.txt"), "new\n");
    writeFileSync(join(wt, "a.txt"), "changed\n");
    // main moves on meanwhile: its own change is not something the merge brought
    ws.write("main-only.txt", "main\n");
    ws.git("add", "main-only.txt");
    ws.git("commit", "-q", "-m", "main work");
    // a git (outside the workspace, first on PATH) that kills the keel process that ran it right after merging
    const bin = mkdtempSync(join("/var/tmp", "keel-fake-git-"));
    try {
      const real = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
      writeFileSync(join(bin, "git"), `#!/bin/sh\n"${real}" "$@"; rc=$?\ncase " $* " in *" merge --no-ff "*) kill -9 $PPID;; esac\nexit $rc\n`);
      chmodSync(join(bin, "git"), 0o755);
      const killed = await runKeelProcess(["worktree", "exit", "--action", "merge"], { cwd: ws.root, env: { ...ws.env, PATH: `${bin}:${ws.env.PATH}` } });
      expect(killed.exitCode, killed.stderr).not.toBe(0);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
    expect(ws.git("log", "--format=%s", "-1", "HEAD")).toContain("Merge keel worktree wip");
    expect(ws.read("new.txt")).toBe("new\n");

    const again = await runKeel(["--json", "worktree", "exit", "--action", "merge"], { cwd: ws.root, env: ws.env });
    expect(again.exitCode, again.stdout + again.stderr).toBe(0);
    expect(again.json()).toMatchObject({ ok: true, action: "merge" });
    expect([...again.json().changedFiles].sort()).toEqual(["a.txt", "new.txt"]);
    expect(again.json().message).toContain("(2 files changed)");
  });
});
