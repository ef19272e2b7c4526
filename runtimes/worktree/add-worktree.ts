import { rmSync } from "node:fs";
import { dirname } from "node:path";
import type { SimpleGit } from "simple-git";
import { errorMessage, gitStorageMessage } from "../../core/index.js";

/**
 * `git worktree add -q -b BRANCH PATH BASE` for a branch and folder that did not exist. When git fails, what it
 * made is undone (the half-made folder, git's entry for it, the new branch), so the same command works once the
 * cause is fixed; when the failure is a storage one (a full disk: git says `No space left on device`, or only
 * `unable to write file` with the disk nearly full), the error says so and what to do, before git's own words.
 * Throws the git error otherwise unchanged.
 */
export async function addWorktree(git: SimpleGit, at: { root: string; path: string; branch: string; baseCommit: string }): Promise<void> {
  try {
    await git.raw(["worktree", "add", "-q", "-b", at.branch, at.path, at.baseCommit]);
  } catch (error) {
    await undo(git, at.path, at.branch);
    const output = errorMessage(error);
    const hint = gitStorageMessage(output, [dirname(at.path), at.root]);
    if (hint === undefined) throw error;
    throw new Error(`git could not create the worktree: ${hint} Nothing of it was kept. git said: ${output.trim()}`, { cause: error });
  }
}

async function undo(git: SimpleGit, path: string, branch: string): Promise<void> {
  rmSync(path, { recursive: true, force: true, maxRetries: 2 });
  for (const args of [
    ["worktree", "prune"],
    ["branch", "-D", branch],
  ])
    await git.raw(args).catch(() => undefined);
}
