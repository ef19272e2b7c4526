import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { UsageError } from "../../../core/errors.js";
import { addWorktree } from "../../../runtimes/worktree/add-worktree.js";
import { gitAt } from "../../../runtimes/worktree/git-client.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

/** A git workspace, its HEAD commit, and what addWorktree is called with for worktree `name` (as the manager calls it). */
async function setUp(name: string) {
  ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
  const git = (...args: string[]) => execFileSync("git", args, { cwd: ws!.root, encoding: "utf8" }).trim();
  const head = git("rev-parse", "HEAD");
  mkdirSync(ws.path(".keel", "worktrees"), { recursive: true });
  const at = { root: ws.root, path: ws.path(".keel", "worktrees", name), branch: `keel/${name}`, baseCommit: head };
  return { git, head, at, client: await gitAt(ws.root, { env: ws.env }) };
}

// What the worktree manager checked (no such folder, no such branch) can stop being true before git runs: another
// program (your git, a script) makes a folder or branch of that name.
describe("a failed worktree add undoes only what it made", () => {
  it("a branch of that name made since the checks is kept, with its commit (before: `git branch -D` deleted it)", async () => {
    const { git, at, client } = await setUp("race");
    git("checkout", "-q", "-b", "keel/race");
    writeFileSync(ws!.path("mine.txt"), "my work\n");
    git("add", "mine.txt");
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "my work");
    const mine = git("rev-parse", "keel/race");
    git("checkout", "-q", "-");
    await expect(addWorktree(client, at)).rejects.toThrow(/already exists/);
    expect(git("rev-parse", "keel/race")).toBe(mine);
    expect(existsSync(at.path)).toBe(false);
  });

  it("a folder of that name made since the checks is kept with what it holds (before: removed with everything in it)", async () => {
    const { git, at, client } = await setUp("race");
    mkdirSync(at.path);
    writeFileSync(`${at.path}/notes.txt`, "keep me\n");
    const error = await addWorktree(client, at).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(readFileSync(`${at.path}/notes.txt`, "utf8")).toBe("keep me\n");
    expect(error).toBeInstanceOf(UsageError);
    expect(git("branch", "--list", "keel/*")).toBe("");
  });

  it("another worktree whose folder is missing for now (a drive not mounted) keeps git's entry (before: `git worktree prune` dropped it)", async () => {
    const { git, at, client } = await setUp("race");
    const away = ws!.path("elsewhere");
    git("worktree", "add", "-q", "-b", "other", away);
    execFileSync("mv", [away, ws!.path("unmounted")]);
    git("branch", "keel/race"); // the add fails (a branch of that name appeared), and undoes what it made
    await expect(addWorktree(client, at)).rejects.toThrow(/already exists/);
    expect(git("worktree", "list", "--porcelain")).toContain(`worktree ${away}`);
  });

  it("when git fails after making them, the new folder and branch go, and the same add works once the cause is gone", async () => {
    const { git, at, client } = await setUp("undo");
    // `.git/worktrees` a file: git cannot record the worktree.
    writeFileSync(ws!.path(".git", "worktrees"), "");
    await expect(addWorktree(client, at)).rejects.toThrow();
    expect(existsSync(at.path)).toBe(false);
    expect(git("branch", "--list", "keel/*")).toBe("");
    execFileSync("rm", [ws!.path(".git", "worktrees")]);
    await addWorktree(client, at);
    expect(git("-C", at.path, "rev-parse", "--abbrev-ref", "HEAD")).toBe("keel/undo");
  });
});
