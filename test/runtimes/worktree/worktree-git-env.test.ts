import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
let bin: string | undefined;
afterEach(() => {
  ws?.cleanup();
  if (bin) rmSync(bin, { recursive: true, force: true });
  ws = bin = undefined;
});

describe("keel's own git runs from the environment keel was given (in-process, its own env)", () => {
  it("worktree enter, status and exit find git on the given PATH, not the test process's", async () => {
    ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
    const real = ws.git("--exec-path").trim(); // a git that works, to hand the calls on to
    expect(real).not.toBe("");
    // A git outside the workspace (under /var/tmp, which sandboxed commands see) that logs each call, first on the given PATH only.
    bin = mkdtempSync("/var/tmp/keel-git-env-");
    const log = join(bin, "calls.log");
    writeFileSync(join(bin, "git"), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${join(real, "git")}' "$@"\n`);
    chmodSync(join(bin, "git"), 0o755);
    const env = { ...ws.env, PATH: `${bin}:${ws.env.PATH ?? ""}` };
    const keel = (...args: string[]) => runKeel(args, { cwd: ws!.root, env });
    const entered = await keel("--json", "worktree", "enter", "w1");
    expect(entered.exitCode, entered.stdout + entered.stderr).toBe(0);
    expect((await keel("--json", "worktree", "status")).exitCode).toBe(0);
    expect((await keel("--json", "worktree", "exit", "--action", "discard")).exitCode).toBe(0);
    const calls = readFileSync(log, "utf8").split("\n").filter(Boolean);
    expect(
      calls.some((c) => / worktree add /.test(` ${c} `)),
      calls.join("\n"),
    ).toBe(true);
    expect(
      calls.some((c) => / worktree remove /.test(` ${c} `)),
      calls.join("\n"),
    ).toBe(true);
  });

  it("GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE in your environment do not point keel's git at another repository", async () => {
    ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
    // Another repository of yours, named by the variables a shell for it may export.
    const other = makeWorkspace({ "b.txt": "b\n" }, { git: true });
    try {
      const env = { ...ws.env, GIT_DIR: other.path(".git"), GIT_WORK_TREE: other.root, GIT_INDEX_FILE: other.path(".git", "index") };
      const keel = (...args: string[]) => runKeel(args, { cwd: ws!.root, env });
      const entered = await keel("--json", "worktree", "enter", "w1");
      expect(entered.exitCode, entered.stdout + entered.stderr).toBe(0);
      // The branch and the worktree are this workspace's repository's, and the other one is untouched.
      expect(ws.git("branch", "--list", "keel/w1").trim()).toContain("keel/w1");
      expect(other.git("branch", "--list", "keel/w1").trim()).toBe("");
      expect(readFileSync(ws.path(".keel", "worktrees", "w1", ".git"), "utf8")).toContain(ws.path(".git", "worktrees", "w1"));
      expect((await keel("--json", "worktree", "exit", "--action", "discard")).exitCode).toBe(0);
    } finally {
      other.cleanup();
    }
  });
});
