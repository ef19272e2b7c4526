import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isManagedWorktree } from "../../core/managed-worktree.js";
import { confinementRoot } from "../../core/tools/confine-path.js";
import { owningWorkspace, resolveWorkspace, workingDirProblem } from "../../core/workspace.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

const stateDir = (w: TempWorkspace) => w.path(".keel");

describe("workspace boundary: what counts as a managed worktree (real git)", () => {
  it("a worktree git made at .keel/worktrees/<name> counts; look-alikes do not", () => {
    ws = makeWorkspace({ "a.txt": "a\n", ".keel/worktrees/plain/.keep": "" }, { git: true });
    ws.git("worktree", "add", "-q", "-b", "keel/real", ws.path(".keel", "worktrees", "real"));
    expect(isManagedWorktree(ws.root, "real")).toBe(true);
    expect(owningWorkspace(ws.path(".keel", "worktrees", "real", "sub"))).toBe(ws.root);
    expect(resolveWorkspace(ws.path(".keel", "worktrees", "real"), ws.env).root).toBe(ws.root);

    // a committed folder, even with a .git file pointing at the repository's own git dir
    expect(isManagedWorktree(ws.root, "plain")).toBe(false);
    writeFileSync(ws.path(".keel", "worktrees", "plain", ".git"), `gitdir: ${ws.path(".git")}\n`);
    expect(isManagedWorktree(ws.root, "plain")).toBe(false);
    expect(owningWorkspace(ws.path(".keel", "worktrees", "plain"))).toBeUndefined();

    // a worktree of this repository elsewhere, reached through a symlink
    const elsewhere = join(dirname(ws.root), "elsewhere");
    ws.git("worktree", "add", "-q", "-b", "keel/elsewhere", elsewhere);
    symlinkSync(elsewhere, ws.path(".keel", "worktrees", "linked"));
    expect(isManagedWorktree(ws.root, "linked")).toBe(false);
  });

  it("a worktree of another repository does not make the folder around it a workspace", () => {
    ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
    const other = join(dirname(ws.root), "other");
    mkdirSync(other);
    const git = (...args: string[]) => execFileSync("git", args, { cwd: other, env: ws!.env });
    git("init", "-q", "-b", "main");
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "o");
    const foreign = ws.path(".keel", "worktrees", "f");
    git("worktree", "add", "-q", "-b", "f", foreign);
    expect(isManagedWorktree(ws.root, "f")).toBe(false);
    expect(owningWorkspace(foreign)).toBeUndefined();
    expect(resolveWorkspace(foreign, ws.env).root).toBe(foreign);
  });
});

describe("confinementRoot never reaches past the workspace root", () => {
  it("a cwd outside the workspace gets the workspace root; a managed worktree keeps its own; a symlinked one gets the root", () => {
    ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
    expect(confinementRoot(ws.root, stateDir(ws), "/")).toBe(ws.root);
    expect(confinementRoot(ws.root, stateDir(ws), dirname(ws.root))).toBe(ws.root);
    expect(confinementRoot(ws.root, stateDir(ws), ws.path("src"))).toBe(ws.root);

    const tree = ws.path(".keel", "worktrees", "t");
    ws.git("worktree", "add", "-q", "-b", "keel/t", tree);
    expect(confinementRoot(ws.root, stateDir(ws), join(tree, "src"))).toBe(tree);

    symlinkSync("/", ws.path(".keel", "worktrees", "evil"));
    expect(confinementRoot(ws.root, stateDir(ws), ws.path(".keel", "worktrees", "evil", "etc"))).toBe(ws.root);
  });
});

describe("workingDirProblem (a directory read from keel's state)", () => {
  it("accepts the workspace and its managed worktrees; refuses the outside, .keel itself and look-alike worktrees", () => {
    ws = makeWorkspace({ "a.txt": "a\n", "pkg/b.txt": "b\n", ".keel/worktrees/fake/.keep": "" }, { git: true });
    const w = { root: ws.root, stateDir: stateDir(ws) };
    ws.git("worktree", "add", "-q", "-b", "keel/ok", ws.path(".keel", "worktrees", "ok"));
    expect(workingDirProblem(w, ws.root)).toBeUndefined();
    expect(workingDirProblem(w, ws.path("pkg"))).toBeUndefined();
    expect(workingDirProblem(w, ws.path(".keel", "worktrees", "ok"))).toBeUndefined();
    expect(workingDirProblem(w, "/")).toContain("outside the workspace");
    expect(workingDirProblem(w, dirname(ws.root))).toContain("outside the workspace");
    expect(workingDirProblem(w, "relative/dir")).toContain("not an absolute path");
    expect(workingDirProblem(w, 42)).toContain("not an absolute path");
    expect(workingDirProblem(w, ws.path("nope"))).toContain("does not exist");
    expect(workingDirProblem(w, ws.path(".keel"))).toContain("keel's state folder");
    expect(workingDirProblem(w, ws.path(".keel", "worktrees", "fake"))).toContain("not a git worktree of this repository");
    symlinkSync("/", ws.path("to-root"));
    expect(workingDirProblem(w, ws.path("to-root"))).toContain("outside the workspace");
  });
});
