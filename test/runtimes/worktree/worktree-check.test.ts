import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkWorktrees, recordFieldProblem } from "../../../runtimes/worktree/worktree-check.js";
import type { WorktreeRecord } from "../../../runtimes/worktree/worktree-state.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

const commit = "a".repeat(40);
const record = (dir: string, name: string, extra: Partial<WorktreeRecord> = {}): WorktreeRecord => ({
  name,
  path: join(dir, name),
  branch: `keel/${name}`,
  baseBranch: "main",
  baseCommit: commit,
  createdAt: "2026-01-01T00:00:00.000Z",
  mode: "entered",
  ...extra,
});

describe("worktree records are checked field by field", () => {
  const dir = "/ws/.keel/worktrees";
  it("accepts what keel writes, and nothing that could steer git elsewhere", () => {
    expect(recordFieldProblem(record(dir, "ok"), dir)).toBeUndefined();
    expect(recordFieldProblem(record(dir, "ok", { baseBranch: commit }), dir)).toBeUndefined();
    expect(recordFieldProblem(record(dir, "../x"), dir)).toContain("name is invalid");
    expect(recordFieldProblem(record(dir, "ok", { path: "/" }), dir)).toContain('path "/"');
    expect(recordFieldProblem(record(dir, "ok", { path: ".keel/worktrees/ok" }), dir)).toContain("is not /ws/.keel/worktrees/ok");
    expect(recordFieldProblem(record(dir, "ok", { path: `${dir}/other` }), dir)).toContain("is not");
    expect(recordFieldProblem(record(dir, "ok", { branch: "main" }), dir)).toContain("branch");
    expect(recordFieldProblem(record(dir, "ok", { baseCommit: "--output=/tmp/pwned" }), dir)).toContain("not a commit id");
    for (const baseBranch of ["--upload-pack=touch /tmp/x", "main..evil", "a b", "HEAD@{1}", "x:y"])
      expect(recordFieldProblem(record(dir, "ok", { baseBranch }), dir), baseBranch).toContain("base branch");
    expect(recordFieldProblem(record(dir, "ok", { mode: "admin" as "entered" }), dir)).toContain("mode");
  });

  it("an existing directory must be its own real path and listed by git; a missing one is a stale but valid entry", async () => {
    ws = makeWorkspace({ "a.txt": "a\n" });
    const wtDir = ws.path(".keel", "worktrees");
    mkdirSync(join(wtDir, "listed"), { recursive: true });
    mkdirSync(join(wtDir, "unlisted"));
    symlinkSync(join(wtDir, "listed"), join(wtDir, "linked"));
    const state = {
      version: 1 as const,
      active: null,
      history: [],
      worktrees: [record(wtDir, "listed"), record(wtDir, "unlisted"), record(wtDir, "linked"), record(wtDir, "gone"), record(wtDir, "listed")],
    };
    let asked = 0;
    const checked = await checkWorktrees(state, wtDir, async () => (asked++, [ws!.root, join(wtDir, "listed"), join(wtDir, "linked")]));
    expect(asked).toBe(1);
    expect([...checked.valid.keys()].sort()).toEqual(["gone", "listed"]);
    expect(checked.valid.get("gone")!.exists).toBe(false);
    expect(checked.ignored.map((b) => [b.index, b.name])).toEqual([
      [1, "unlisted"],
      [2, "linked"],
      [4, "listed"],
    ]);
    expect(checked.ignored[0]!.reason).toContain("git does not list");
    expect(checked.ignored[1]!.reason).toContain("symlink");
    expect(checked.ignored[2]!.reason).toContain("second entry");

    const failing = await checkWorktrees({ ...state, worktrees: [record(wtDir, "listed")] }, wtDir, async () => {
      throw new Error("fatal: not a git repository");
    });
    expect(failing.ignored[0]!.reason).toContain("not a git repository");
  });
});
