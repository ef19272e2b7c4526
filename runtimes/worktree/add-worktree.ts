import { mkdirSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import type { SimpleGit } from "simple-git";
import { errorMessage, gitStorageMessage, UsageError } from "../../core/index.js";

/**
 * A worktree at `path` on a new branch `branch` from `baseCommit`, as `git worktree add -b BRANCH PATH BASE` makes
 * it, for a folder and a branch that do not exist. Each is made here only if it does not exist yet, in one step
 * (`mkdir`, then `git update-ref` with an empty old value), so that when git fails, what is undone (the half-made
 * folder, git's entry for it, the new branch) is only ever what this call made: never a folder or branch of that
 * name another program made since the caller checked. The same command then works once the cause is fixed. When the
 * failure is a storage one (a full disk: git says `No space left on device`, or only `unable to write file` with
 * the disk nearly full), the error says so and what to do, before git's own words. Throws the git error otherwise
 * unchanged (a branch that appeared since the caller's checks: git's `reference already exists`), and a UsageError
 * when the folder appeared.
 */
export async function addWorktree(git: SimpleGit, at: { root: string; path: string; branch: string; baseCommit: string }): Promise<void> {
  try {
    mkdirSync(at.path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST")
      throw new UsageError(`${at.path} appeared while keel was creating the worktree there; keel left it as it is. Remove it, or pick another name.`);
    throw error;
  }
  const ref = `refs/heads/${at.branch}`;
  let madeBranch = false;
  try {
    // The empty old value: git makes the branch only if no branch of that name exists, else fails (and it is kept).
    await git.raw(["update-ref", "-m", `branch: Created from ${at.baseCommit}`, ref, at.baseCommit, ""]);
    madeBranch = true;
    await git.raw(["worktree", "add", "-q", at.path, at.branch]);
  } catch (error) {
    await undo(git, at.path, madeBranch ? { ref, commit: at.baseCommit } : undefined);
    const output = errorMessage(error);
    const hint = gitStorageMessage(output, [dirname(at.path), at.root]);
    if (hint === undefined) throw error;
    throw new Error(`git could not create the worktree: ${hint} Nothing of it was kept. git said: ${output.trim()}`, { cause: error });
  }
}

/** Removes the folder this call made, git's entry for it, and the branch it made (only while it still points where it was made). */
async function undo(git: SimpleGit, path: string, branch: { ref: string; commit: string } | undefined): Promise<void> {
  // git's entry for this folder (and the folder), by its path: `git worktree prune` would also drop the entries of
  // other worktrees whose folders are missing for now (on a drive not mounted), which this call did not make.
  await git.raw(["worktree", "remove", "--force", "--force", path]).catch(() => undefined);
  rmSync(path, { recursive: true, force: true, maxRetries: 2 });
  if (branch) await git.raw(["update-ref", "-d", branch.ref, branch.commit]).catch(() => undefined);
}
