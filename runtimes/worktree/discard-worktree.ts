import { existsSync } from "node:fs";
import { branchRef, commitAll, committingGitAt, gitAt, resolveRef, statusLines } from "./git-client.js";
import { refTimestamp } from "./worktree-name.js";
import type { WorktreeRecord } from "./worktree-state.js";

/** Prefix of the refs that keep discarded work. */
export const DISCARDED_REF_PREFIX = "refs/keel/discarded/";

/** Outcome of a discard: refused (ok false, nothing touched) or done, with the ref holding saved work. */
export interface DiscardOutcome {
  ok: boolean;
  message: string;
  changedFiles: string[];
  savedRef?: string;
}

/** Uncommitted files and commits not yet in the base branch of a worktree. Never throws for a missing directory. */
export async function pendingWork(
  rec: WorktreeRecord,
  repoRoot: string,
  env: NodeJS.ProcessEnv,
  signal?: AbortSignal,
): Promise<{ uncommitted: string[]; unmerged: number }> {
  const main = await gitAt(repoRoot, { env, signal });
  const uncommitted = existsSync(rec.path) ? (await statusLines(await gitAt(rec.path, { env, signal }))).map((l) => l.slice(3)) : [];
  let unmerged = 0;
  if (await resolveRef(main, `refs/heads/${rec.branch}`)) {
    const target = (await resolveRef(main, branchRef(rec.baseBranch))) ? branchRef(rec.baseBranch) : rec.baseCommit;
    unmerged = Number((await main.raw(["rev-list", "--count", `${target}..${branchRef(rec.branch)}`])).trim()) || 0;
  }
  return { uncommitted, unmerged };
}

/**
 * Removes a worktree and its branch. With uncommitted or unmerged work it refuses unless `force`;
 * with `force` it first commits that work and points `refs/keel/discarded/<name>-<timestamp>` at
 * it, so nothing becomes unrecoverable.
 */
export async function discardWorktree(
  rec: WorktreeRecord,
  repoRoot: string,
  force: boolean,
  env: NodeJS.ProcessEnv,
  signal?: AbortSignal,
): Promise<DiscardOutcome> {
  const { uncommitted, unmerged } = await pendingWork(rec, repoRoot, env, signal);
  const main = await gitAt(repoRoot, { env, signal });
  const hasWork = uncommitted.length > 0 || unmerged > 0;
  if (hasWork && !force) {
    const parts = [
      uncommitted.length
        ? `${uncommitted.length} uncommitted file${uncommitted.length === 1 ? "" : "s"} (${uncommitted.slice(0, 5).join(", ")}${uncommitted.length > 5 ? ", …" : ""})`
        : "",
      unmerged ? `${unmerged} commit${unmerged === 1 ? "" : "s"} not merged into ${rec.baseBranch}` : "",
    ].filter(Boolean);
    return {
      ok: false,
      changedFiles: uncommitted,
      message: `Refusing to discard worktree "${rec.name}": it has ${parts.join(" and ")}. Nothing was removed. Merge it (\`keel worktree exit --action merge\`), keep it, or discard with --force (the work is first saved under ${DISCARDED_REF_PREFIX}).`,
    };
  }
  let savedRef: string | undefined;
  if (hasWork) {
    if (uncommitted.length) await commitAll(await committingGitAt(rec.path, env, signal), `keel: discarded work from worktree ${rec.name}`);
    const tip = await resolveRef(main, `refs/heads/${rec.branch}`);
    if (tip) {
      savedRef = `${DISCARDED_REF_PREFIX}${rec.name}-${refTimestamp()}`;
      for (let i = 2; await resolveRef(main, savedRef); i++) savedRef = `${DISCARDED_REF_PREFIX}${rec.name}-${refTimestamp()}-${i}`;
      await main.raw(["update-ref", "-m", `keel: discard worktree ${rec.name}`, savedRef, tip]);
    }
  }
  if (existsSync(rec.path)) await main.raw(["worktree", "remove", "--force", rec.path]);
  await main.raw(["worktree", "prune"]);
  if (await resolveRef(main, `refs/heads/${rec.branch}`)) await main.raw(["branch", "-D", rec.branch]);
  const saved = savedRef
    ? ` The work was saved as ${savedRef}; restore it with \`git branch restored/${rec.name} ${savedRef}\`.`
    : " There was no work to save.";
  return { ok: true, changedFiles: uncommitted, savedRef, message: `Discarded worktree "${rec.name}" and branch ${rec.branch}.${saved}` };
}
