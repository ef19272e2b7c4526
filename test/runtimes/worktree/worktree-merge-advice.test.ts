import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

const keel = (w: TempWorkspace, ...args: string[]) => runKeel(args, { cwd: w.root, env: w.env });

describe("keel worktree exit --action merge: advice that works", () => {
  it("judges file names exactly: a worktree file named `*` blocks nothing, a name with a newline in the way is named", async () => {
    ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
    expect((await keel(ws, "worktree", "enter", "odd")).exitCode).toBe(0);
    const wt = ws.path(".keel", "worktrees", "odd");
    writeFileSync(join(wt, "*"), "star\n");
    writeFileSync(join(wt, "a\nb.txt"), "from worktree\n");
    // Untracked in the main checkout: notes.txt is not touched by the merge; "a\nb.txt" is.
    ws.write("notes.txt", "mine\n");
    ws.write("a\nb.txt", "local draft\n");
    const blocked = await keel(ws, "worktree", "exit", "--action", "merge");
    expect(blocked.exitCode).toBe(1);
    expect(blocked.stderr).toContain('untracked file "a\\nb.txt" that the merge of keel/odd would overwrite');
    expect(blocked.stderr).not.toContain("notes.txt");
    expect(ws.read("a\nb.txt")).toBe("local draft\n");

    rmSync(ws.path("a\nb.txt"));
    const merged = await keel(ws, "worktree", "exit", "--action", "merge");
    expect(merged.exitCode, merged.stderr).toBe(0);
    expect(ws.read("*")).toBe("star\n");
    expect(ws.read("notes.txt")).toBe("mine\n");
  });

  it("an untracked file in the main checkout in the way is named, with what to do about it", async () => {
    ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
    expect((await keel(ws, "worktree", "enter", "ut")).exitCode).toBe(0);
    writeFileSync(join(ws.path(".keel", "worktrees", "ut"), "new.txt"), "from worktree\n");
    ws.write("new.txt", "local draft\n");

    const r = await keel(ws, "worktree", "exit", "--action", "merge");
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("untracked file new.txt");
    expect(r.stderr).toContain("Move or commit that file in the main checkout");
    expect(r.stderr).not.toContain("git merge");
    expect(ws.read("new.txt")).toBe("local draft\n");

    // Following the advice works.
    ws.git("add", "new.txt");
    ws.git("commit", "-qm", "draft");
    ws.git("rm", "-q", "new.txt");
    ws.git("commit", "-qm", "drop draft");
    const again = await keel(ws, "worktree", "exit", "--action", "merge");
    expect(again.exitCode, again.stderr).toBe(0);
    expect(ws.read("new.txt")).toBe("from worktree\n");
  });
});
