import { existsSync, mkdirSync, renameSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

const keelIn = (w: TempWorkspace, cwd: string, ...args: string[]) => runKeel(args, { cwd, env: w.env });

describe("keel worktree: where the workspace sits", () => {
  it("a workspace in a subfolder of the repository works in the same subfolder of the worktree", async () => {
    ws = makeWorkspace({ "pkg/a.txt": "a\n" }, { git: true });
    mkdirSync(ws.path("pkg", ".keel"));
    const pkg = ws.path("pkg");
    const entered = await keelIn(ws, pkg, "--json", "worktree", "enter", "sx");
    expect(entered.exitCode, entered.stderr).toBe(0);
    const wt = entered.json().path as string;
    expect(wt).toBe(ws.path("pkg", ".keel", "worktrees", "sx"));

    const wrote = await keelIn(ws, pkg, "--yes", "--json", "call", "write_file", "--input", JSON.stringify({ path: "p.txt", content: "x" }));
    expect(wrote.json().ok, wrote.stdout).toBe(true);
    expect(existsSync(join(wt, "pkg", "p.txt"))).toBe(true);
    expect(existsSync(join(wt, "p.txt"))).toBe(false);
    const pwd = await keelIn(ws, pkg, "--yes", "--json", "call", "bash", "--input", JSON.stringify({ command: "pwd" }));
    expect(pwd.json().data.stdout.trim()).toBe(join(wt, "pkg"));
    // The boundary is the workspace's subfolder in the worktree, as in the main checkout.
    const escape = await keelIn(ws, pkg, "--yes", "--json", "call", "write_file", "--input", JSON.stringify({ path: "../top.txt", content: "x" }));
    expect(escape.json()).toMatchObject({ ok: false, code: "permission_denied" });
    expect(existsSync(join(wt, "top.txt"))).toBe(false);

    const merged = await keelIn(ws, pkg, "--json", "worktree", "exit", "--action", "merge");
    expect(merged.exitCode, merged.stdout + merged.stderr).toBe(0);
    expect(merged.json().changedFiles).toEqual(["pkg/p.txt"]);
    expect(ws.read("pkg/p.txt")).toBe("x");
    expect(ws.exists("p.txt")).toBe(false);
  });

  it("a workspace whose .git is a link to the repository's folder makes worktrees of that repository", async () => {
    ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
    const gitDir = join(dirname(ws.root), "repo.git");
    renameSync(ws.path(".git"), gitDir);
    symlinkSync(gitDir, ws.path(".git"));
    const entered = await keelIn(ws, ws.root, "--json", "worktree", "enter", "ln");
    expect(entered.exitCode, entered.stderr).toBe(0);
    expect(ws.git("branch", "--list", "keel/ln")).toContain("keel/ln");
  });

  it("keel run inside a managed worktree belongs to the parent workspace and refuses nesting", async () => {
    ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
    const entered = await keelIn(ws, ws.root, "--json", "worktree", "enter", "pv");
    expect(entered.exitCode, entered.stderr).toBe(0);
    const wt = ws.path(".keel", "worktrees", "pv");

    const status = await keelIn(ws, wt, "--json", "worktree", "status");
    expect(status.json().active).toMatchObject({ name: "pv" });

    const nested = await keelIn(ws, wt, "worktree", "enter", "nested");
    expect(nested.exitCode).toBe(2);
    expect(nested.stderr).toContain('inside managed worktree "pv"');
    expect(nested.stderr).toContain("do not nest");
    expect(existsSync(join(wt, ".keel", "worktrees", "nested"))).toBe(false);
    expect(ws.exists(".keel/worktrees/nested")).toBe(false);

    const wrote = await keelIn(ws, wt, "--yes", "--json", "call", "write_file", "--input", JSON.stringify({ path: "b.txt", content: "b\n" }));
    expect(wrote.json().ok, wrote.stdout).toBe(true);
    const merged = await keelIn(ws, wt, "--json", "worktree", "exit", "--action", "merge");
    expect(merged.exitCode, merged.stdout + merged.stderr).toBe(0);
    expect(ws.read("b.txt")).toBe("b\n");
  });

  it("gc in a fresh repository keeps its state out of git status", async () => {
    ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
    const gc = await keelIn(ws, ws.root, "worktree", "gc");
    expect(gc.exitCode, gc.stderr).toBe(0);
    expect(ws.exists(".keel/.gitignore")).toBe(true);
    expect(ws.git("status", "--porcelain", "-uall").trim()).toBe("");
  });
});
