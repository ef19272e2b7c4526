import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { KeelError } from "../../../core/errors.js";
import type { Host } from "../../../core/host.js";
import { runKeel, runKeelProcess } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { openTestHost } from "../../helpers/test-host.js";

let ws: TempWorkspace | undefined;
const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
  ws?.cleanup();
});

const state = (w: TempWorkspace) => JSON.parse(readFileSync(w.path(".keel", "state", "worktrees.json"), "utf8"));

describe("concurrent keel worktree enter", () => {
  it("the loser fails with exit code 1 and leaves no inactive 'entered' record", async () => {
    ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
    const a = await openTestHost(ws);
    const b = await openTestHost(ws);
    hosts.push(a, b);
    const results = await Promise.allSettled([a.service("worktree-manager")!.enter("one"), b.service("worktree-manager")!.enter("two")]);
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(lost).toHaveLength(1);
    expect(lost[0]!.reason).toBeInstanceOf(KeelError);
    expect((lost[0]!.reason as KeelError).exitCode).toBe(1);
    expect(String(lost[0]!.reason.message)).toContain("became active meanwhile");
    const s = state(ws);
    expect(s.worktrees).toHaveLength(2);
    for (const w of s.worktrees) expect(w.mode === "entered").toBe(w.name === s.active);
  });

  it("through the CLI: one enter wins; every loser exits 1 (race) or 2 (already active), state stays consistent", async () => {
    ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
    const runs = await Promise.all(["r1", "r2", "r3"].map((n) => runKeel(["worktree", "enter", n], { cwd: ws!.root, env: ws!.env })));
    expect(runs.filter((r) => r.exitCode === 0)).toHaveLength(1);
    for (const r of runs.filter((x) => x.exitCode !== 0)) {
      if (r.stderr.includes("became active meanwhile")) expect(r.exitCode).toBe(1);
      else expect(r.stderr).toContain("is already active");
    }
    const s = state(ws);
    for (const w of s.worktrees) expect(w.mode === "entered").toBe(w.name === s.active);
  });

  it("two enters of the same new name: one makes it; the other is told it exists, not to delete its branch", async () => {
    ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
    const a = await openTestHost(ws);
    const b = await openTestHost(ws);
    hosts.push(a, b);
    const results = await Promise.allSettled([a.service("worktree-manager")!.enter("same"), b.service("worktree-manager")!.enter("same")]);
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(lost).toHaveLength(1);
    // the checks and `git worktree add` happen under one lock: the loser sees the winner's record
    expect(String(lost[0]!.reason.message)).toMatch(/A worktree named "same" already exists|Worktree "same" is already active/);
    expect(state(ws)).toMatchObject({ active: "same", worktrees: [{ name: "same", mode: "entered" }] });
  });

  it("keel killed between `git worktree add` and its record: the next enter names the leftover folder and branch and how to remove them", async () => {
    ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
    // a git (outside the workspace, first on PATH) that kills the keel process that ran it right after adding a worktree
    const bin = mkdtempSync(join("/var/tmp", "keel-fake-git-"));
    try {
      const real = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
      writeFileSync(join(bin, "git"), `#!/bin/sh\n"${real}" "$@"; rc=$?\ncase " $* " in *" worktree add "*) kill -9 $PPID;; esac\nexit $rc\n`);
      chmodSync(join(bin, "git"), 0o755);
      const env = { ...ws.env, PATH: `${bin}:${ws.env.PATH}` };
      const killed = await runKeelProcess(["worktree", "enter", "wip"], { cwd: ws.root, env });
      expect(killed.exitCode, killed.stderr).not.toBe(0);
      expect(ws.exists(".keel/worktrees/wip")).toBe(true);
      const again = await runKeel(["worktree", "enter", "wip"], { cwd: ws.root, env: ws.env });
      expect(again.exitCode).toBe(2);
      expect(again.stderr).toContain('keel has no record of worktree "wip"');
      expect(again.stderr).toContain(`git worktree remove --force ${ws.path(".keel/worktrees/wip")}`);
      expect(again.stderr).toContain("git branch -D keel/wip");
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
});
