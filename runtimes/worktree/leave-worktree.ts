import { existsSync } from "node:fs";
import { UsageError } from "../../core/index.js";
import { changedSinceBase, removeWorktree, type WorktreeAction } from "./worktree-records.js";
import type { WorktreeRecord } from "./worktree-state.js";

/** What leaving a worktree did: whether it worked, what to tell the user, the files it changed, and where discarded work was saved. */
export interface LeaveOutcome {
  ok: boolean;
  message: string;
  changedFiles: string[];
  savedRef?: string;
}

/**
 * Does what `action` asks with a checked record's worktree in the repository at `root`: keep (leave it
 * and its branch), merge (then remove it; a refused merge leaves it), or discard (saving work first
 * when `force`). `active` only words the retry hint of a refused merge. The state file is the caller's.
 */
export async function leaveWorktree(
  rec: WorktreeRecord,
  action: WorktreeAction,
  root: string,
  opts: { force: boolean; active: boolean; env: NodeJS.ProcessEnv; signal?: AbortSignal },
): Promise<LeaveOutcome> {
  if (action === "keep") {
    const changedFiles = existsSync(rec.path) ? await changedSinceBase(rec, opts.env, opts.signal) : [];
    return {
      ok: true,
      changedFiles,
      message: `Left worktree "${rec.name}"; it stays at ${rec.path} on branch ${rec.branch}. Re-enter it with \`keel worktree enter ${rec.name}\`.`,
    };
  }
  if (action === "merge") {
    if (!existsSync(rec.path)) throw new UsageError(`Worktree "${rec.name}" is gone (${rec.path}); nothing to merge. Run \`keel worktree gc\`.`);
    const retry = opts.active ? "`keel worktree exit --action merge`" : `\`keel worktree enter ${rec.name}\` then \`keel worktree exit --action merge\``;
    // Merging and discarding load when a worktree is left: most commands never leave one.
    const { mergeWorktree } = await import("./merge-worktree.js");
    const outcome = await mergeWorktree(rec, root, opts.env, opts.signal, retry);
    if (outcome.ok) await removeWorktree(rec, root, opts.env, opts.signal);
    return outcome;
  }
  const { discardWorktree } = await import("./discard-worktree.js");
  return discardWorktree(rec, root, opts.force, opts.env, opts.signal);
}
