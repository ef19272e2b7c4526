import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { callJson, runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { closeAfterEach, openTestHost } from "../../helpers/test-host.js";

let ws: TempWorkspace | undefined;
let host: Host | undefined;
closeAfterEach(() => ({ host, ws }));

const keel = (w: TempWorkspace, ...args: string[]) => runKeel(args, { cwd: w.root, env: w.env });
const call = callJson;

/** A repository that commits `.keel/state/worktrees.json` naming worktree "x" (active) at `path`. */
function hostileRepo(path: (root: string) => string, files: Record<string, string> = {}): TempWorkspace {
  const w = makeWorkspace({ "a.txt": "a\n", ...files }, { git: true });
  const commit = w.git("rev-parse", "HEAD").trim();
  const record = {
    name: "x",
    path: path(w.root),
    branch: "keel/x",
    baseBranch: "main",
    baseCommit: commit,
    createdAt: "2026-01-01T00:00:00.000Z",
    mode: "entered",
  };
  w.write(".keel/state/worktrees.json", { version: 1, active: "x", worktrees: [record], history: [] });
  w.git("add", "-f", "-A");
  w.git("commit", "-q", "-m", "hostile worktree registry");
  return w;
}

describe("a committed .keel/state/worktrees.json is not believed", () => {
  const cases: [string, (root: string) => string][] = [
    ["the file-system root", () => "/"],
    ["a relative path out of the workspace", () => "../outside"],
    ["a folder under .keel/worktrees/ that git does not list", (root) => join(root, ".keel", "worktrees", "x")],
  ];
  it.each(cases)("active worktree at %s: grep and write_file stay in the workspace, the entry is reported and gc drops it", async (_label, path) => {
    ws = hostileRepo(path, { ".keel/worktrees/x/committed.txt": "in the repo\n" });
    const outside = join(dirname(ws.root), "outside");
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, "secret.txt"), "root-secret\n");

    for (const target of ["etc/passwd", "/etc/passwd", "secret.txt", join(outside, "secret.txt")]) {
      const grep = await call(ws, "grep", { pattern: "root", path: target });
      expect(grep.ok, `${target}: ${grep.content}`).toBe(false);
      expect(grep.content).not.toContain("root:");
      expect(grep.content).not.toContain("root-secret");
    }
    const escaped = join(outside, "escaped.txt");
    const write = await call(ws, "write_file", { path: escaped, content: "pwned" });
    expect(write).toMatchObject({ ok: false, code: "permission_denied" });
    expect(existsSync(escaped)).toBe(false);
    // Not activated: relative paths still mean the main checkout.
    expect((await call(ws, "write_file", { path: "w.txt", content: "main\n" })).ok).toBe(true);
    expect(ws.read("w.txt")).toBe("main\n");
    expect(ws.exists(".keel/worktrees/x/w.txt")).toBe(false);

    const tools = await keel(ws, "--json", "tools");
    const diag = tools.json().diagnostics.find((d: { source: string }) => d.source === "worktree");
    expect(diag).toMatchObject({ severity: "error", file: ws.path(".keel", "state", "worktrees.json"), path: "worktrees[0]" });
    expect(diag.message).toContain('Ignored worktree entry "x"');
    expect(diag.message).toContain("keel worktree gc");

    const exit = await keel(ws, "worktree", "exit", "--action", "discard", "--force");
    expect(exit.exitCode).toBe(2);
    expect(exit.stderr).toContain("No worktree is active");
    const list = await keel(ws, "--json", "worktree", "list");
    expect(list.json().worktrees).toEqual([expect.objectContaining({ name: "x", exists: false, active: false, ignored: expect.any(String) })]);

    const gc = await keel(ws, "--json", "worktree", "gc");
    expect(gc.exitCode, gc.stderr).toBe(0);
    expect(gc.json().pruned).toEqual(["x"]);
    expect(ws.read(".keel/worktrees/x/committed.txt")).toBe("in the repo\n");
    expect(existsSync(join(outside, "secret.txt"))).toBe(true);
    expect((await keel(ws, "--json", "tools")).json().diagnostics.filter((d: { source: string }) => d.source === "worktree")).toEqual([]);
  });

  it("the WorktreeService (workflows, sub-agents) refuses to finish a forged entry and touches neither its path nor its branch", async () => {
    ws = hostileRepo(() => "../outside");
    const outside = join(dirname(ws.root), "outside");
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, "keep.txt"), "keep\n");
    ws.git("branch", "keel/x");
    host = await openTestHost(ws);
    expect(host.activeDir).toBe(ws.root);
    expect(host.activeDirError).toBeUndefined();
    const service = host.service("worktrees")!;
    expect(service.active()).toBeUndefined();
    for (const action of ["discard", "merge", "keep"] as const)
      await expect(service.finish("x", action, { force: true })).rejects.toThrow(/Ignored worktree entry "x".*keel worktree gc/s);
    await expect(service.enter("x")).rejects.toThrow(/Ignored worktree entry "x"/);
    expect(existsSync(join(outside, "keep.txt"))).toBe(true);
    expect(ws.git("branch", "--list", "keel/x").trim()).toBe("keel/x");
  });

  it("a git worktree of another repository placed at .keel/worktrees/y is ignored and does not make this workspace its owner", async () => {
    ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
    const other = join(dirname(ws.root), "other");
    mkdirSync(other);
    const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, env: ws!.env, encoding: "utf8" });
    git(other, "init", "-q", "-b", "main");
    git(other, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "other");
    const foreign = ws.path(".keel", "worktrees", "y");
    git(other, "worktree", "add", "-q", "-b", "keel/y", foreign);
    const commit = git(other, "rev-parse", "HEAD").trim();
    ws.write(".keel/state/worktrees.json", {
      version: 1,
      active: "y",
      worktrees: [
        { name: "y", path: foreign, branch: "keel/y", baseBranch: "main", baseCommit: commit, createdAt: "2026-01-01T00:00:00.000Z", mode: "entered" },
      ],
      history: [],
    });

    const diags = (await keel(ws, "--json", "tools")).json().diagnostics.filter((d: { source: string }) => d.source === "worktree");
    expect(diags).toHaveLength(1);
    expect(diags[0].message).toContain("git does not list");
    const pwd = await call(ws, "bash", { command: "pwd" });
    expect(pwd.data.stdout.trim()).toBe(ws.root);
    // Started inside it, keel's workspace is that worktree, not the folder around it.
    const r = await runKeel(["--json", "call", "read_file", "--input", JSON.stringify({ path: "../../../a.txt" })], { cwd: foreign, env: ws.env });
    expect(r.json()).toMatchObject({ ok: false, code: "permission_denied" });
    expect(existsSync(foreign)).toBe(true);
  });
});

describe("an active worktree whose directory vanished", () => {
  it("fails every tool call with precondition_failed naming it and `keel worktree gc`; run refuses; status/list/gc recover", async () => {
    ws = makeWorkspace({ "a.txt": "a\n", "s.json": [{ text: "never used" }] }, { git: true });
    const entered = await keel(ws, "--json", "worktree", "enter", "gone");
    expect(entered.exitCode, entered.stderr).toBe(0);
    execFileSync("rm", ["-rf", entered.json().path]);

    const read = await call(ws, "read_file", { path: "a.txt" });
    expect(read).toMatchObject({ ok: false, code: "precondition_failed" });
    expect(read.content).toContain('"gone"');
    expect(read.content).toContain("keel worktree gc");
    const write = await call(ws, "write_file", { path: "b.txt", content: "b" });
    expect(write.code).toBe("precondition_failed");
    expect(ws.exists("b.txt")).toBe(false);

    const run = await keel(ws, "run", "--model", "scripted:s.json", "hello");
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('"gone"');
    expect(run.stderr).toContain("keel worktree gc");
    expect(ws.exists(".keel/sessions")).toBe(false);

    const status = await keel(ws, "worktree", "status");
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stdout).toContain("keel worktree gc");
    const list = await keel(ws, "--json", "worktree", "list");
    expect(list.json().worktrees).toEqual([expect.objectContaining({ name: "gone", active: true, exists: false })]);

    const gc = await keel(ws, "--json", "worktree", "gc");
    expect(gc.json().pruned).toEqual(["gone"]);
    const after = await call(ws, "read_file", { path: "a.txt" });
    expect(after).toMatchObject({ ok: true, content: "a\n" });
  });

  it("`keel worktree exit --action keep` also clears it", async () => {
    ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
    const entered = (await keel(ws, "--json", "worktree", "enter", "gone")).json();
    execFileSync("rm", ["-rf", entered.path]);
    const exit = await keel(ws, "worktree", "exit", "--action", "keep");
    expect(exit.exitCode, exit.stderr).toBe(0);
    expect((await call(ws, "read_file", { path: "a.txt" })).ok).toBe(true);
  });
});
