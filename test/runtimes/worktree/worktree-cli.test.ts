import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

const keel = (w: TempWorkspace, ...args: string[]) => runKeel(args, { cwd: w.root, env: w.env });
const branches = (w: TempWorkspace) => w.git("branch", "--format=%(refname:short)").split("\n").filter(Boolean);

describe("keel worktree (real CLI, real git)", () => {
  it("enter preview → a written file exists only in the worktree → exit merge brings it into main", async () => {
    ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
    const entered = await keel(ws, "--json", "worktree", "enter", "preview");
    expect(entered.exitCode, entered.stderr).toBe(0);
    const info = entered.json();
    expect(info).toMatchObject({ name: "preview", branch: "keel/preview", baseBranch: "main" });
    expect(info.path).toBe(ws.path(".keel", "worktrees", "preview"));

    // A later process works inside the worktree: file tools and bash follow the active directory.
    const wrote = await keel(ws, "--yes", "--json", "call", "write_file", "--input", JSON.stringify({ path: "new.txt", content: "from preview\n" }));
    expect(wrote.json().ok).toBe(true);
    const pwd = await keel(ws, "--yes", "--json", "call", "bash", "--input", JSON.stringify({ command: "pwd" }));
    expect(pwd.json().data.stdout.trim()).toBe(info.path);
    expect(existsSync(join(info.path, "new.txt"))).toBe(true);
    expect(ws.exists("new.txt")).toBe(false);

    const status = (await keel(ws, "--json", "worktree", "status")).json();
    expect(status.active).toMatchObject({ name: "preview", uncommitted: ["new.txt"], changedFiles: ["new.txt"] });

    const again = await keel(ws, "worktree", "enter", "other");
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain('Worktree "preview" is already active');

    const merged = await keel(ws, "--json", "worktree", "exit", "--action", "merge");
    expect(merged.exitCode, merged.stdout + merged.stderr).toBe(0);
    expect(merged.json()).toMatchObject({ ok: true, action: "merge", changedFiles: ["new.txt"] });
    expect(ws.read("new.txt")).toBe("from preview\n");
    expect(existsSync(info.path)).toBe(false);
    expect(branches(ws)).toEqual(["main"]);
    // The merge commit's second parent is the worktree's work (commits made in the same second have no date order).
    expect(ws.git("log", "--format=%s", "-1", "HEAD")).toContain("Merge keel worktree preview");
    expect(ws.git("log", "--format=%s", "-1", "HEAD^2").trim()).toBe("keel: work from worktree preview");
    expect(ws.git("status", "--porcelain", "-uall").trim()).toBe("");
    const state = JSON.parse(readFileSync(ws.path(".keel", "state", "worktrees.json"), "utf8"));
    expect(state.active).toBeNull();
    expect(state.history.at(-1)).toMatchObject({ name: "preview", action: "merge", ok: true });
    // Back in the main checkout.
    const pwdAfter = await keel(ws, "--yes", "--json", "call", "bash", "--input", JSON.stringify({ command: "pwd" }));
    expect(pwdAfter.json().data.stdout.trim()).toBe(ws.root);
  });

  it("a conflicting merge aborts cleanly: main unchanged, worktree work intact and committed, still active", async () => {
    ws = makeWorkspace({ "a.txt": "base\n" }, { git: true });
    expect((await keel(ws, "worktree", "enter", "clash")).exitCode).toBe(0);
    const wt = ws.path(".keel", "worktrees", "clash");
    writeFileSync(join(wt, "a.txt"), "worktree side\n");
    ws.write("a.txt", "main side\n");
    ws.git("commit", "-q", "-am", "main edit");
    const headBefore = ws.git("rev-parse", "HEAD").trim();

    const r = await keel(ws, "worktree", "exit", "--action", "merge");
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("conflicts in a.txt");
    expect(r.stderr).toContain("The merge was aborted");
    expect(r.stderr).toMatch(/git merge refs\/heads\/main|git rebase refs\/heads\/main/);
    expect(ws.read("a.txt")).toBe("main side\n");
    expect(ws.git("status", "--porcelain", "-uall").trim()).toBe("");
    expect(ws.git("rev-parse", "HEAD").trim()).toBe(headBefore);
    expect(existsSync(ws.path(".git", "MERGE_HEAD"))).toBe(false);
    expect(readFileSync(join(wt, "a.txt"), "utf8")).toBe("worktree side\n");
    expect(ws.git("log", "-1", "--format=%s", "keel/clash").trim()).toBe("keel: work from worktree clash");
    const status = (await keel(ws, "--json", "worktree", "status")).json();
    expect(status.active.name).toBe("clash");
  });

  it("refuses ../x and a 65-character name before creating anything", async () => {
    ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
    for (const name of ["../x", "a".repeat(65)]) {
      const r = await keel(ws, "worktree", "enter", name);
      expect(r.exitCode, name).toBe(2);
      expect(r.stderr).toContain("Invalid worktree name");
    }
    expect(ws.exists(".keel")).toBe(false);
    expect(existsSync(join(ws.root, "..", "x"))).toBe(false);
    expect(branches(ws)).toEqual(["main"]);
    expect(ws.git("worktree", "list").trim().split("\n")).toHaveLength(1);
    // A 64-character name is fine.
    const ok = await keel(ws, "--json", "worktree", "enter", "b".repeat(64));
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(readdirSync(ws.path(".keel", "worktrees"))).toEqual(["b".repeat(64)]);
  });

  it("discard refuses unsaved work without --force; with --force saves it under refs/keel/discarded/ and lists how to restore", async () => {
    ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
    await keel(ws, "worktree", "enter", "scratch");
    const wt = ws.path(".keel", "worktrees", "scratch");
    writeFileSync(join(wt, "idea.txt"), "precious\n");

    const refused = await keel(ws, "worktree", "exit", "--action", "discard");
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain("Refusing to discard");
    expect(refused.stderr).toContain("idea.txt");
    expect(existsSync(join(wt, "idea.txt"))).toBe(true);

    const forced = await keel(ws, "--json", "worktree", "exit", "--action", "discard", "--force");
    expect(forced.exitCode, forced.stderr).toBe(0);
    const result = forced.json();
    expect(result.savedRef).toMatch(/^refs\/keel\/discarded\/scratch-\d{8}T\d+Z$/);
    expect(existsSync(wt)).toBe(false);
    expect(branches(ws)).toEqual(["main"]);
    expect(ws.git("show", `${result.savedRef}:idea.txt`)).toBe("precious\n");

    const listed = await keel(ws, "worktree", "list", "--discarded");
    expect(listed.stdout).toContain(result.savedRef);
    expect(listed.stdout).toContain(`git branch restored/`);
  });
});
