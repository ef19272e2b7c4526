import type { SimpleGit } from "simple-git";
import { errorMessage, shownPath } from "../../core/index.js";
import { branchRef, commitAll, committingGitAt, currentBranch, NO_SUBMODULE_STATUS, resolveRef, statusLines } from "./git-client.js";
import { submoduleIgnoreOverrides } from "./submodule-ignore.js";
import type { WorktreeRecord } from "./worktree-state.js";

/** Outcome of one merge attempt; on failure nothing in the main checkout changed. */
export interface MergeOutcome {
  ok: boolean;
  message: string;
  changedFiles: string[];
}

/**
 * Commits pending changes in the worktree (message names it), then merges its branch into the
 * branch it came from in the main checkout. Refuses (changing nothing) when the main checkout is
 * on another branch or has uncommitted changes; aborts a conflicting merge so both sides stay
 * intact and says what to do. Does not remove the worktree (the caller does on success).
 * `retry` is the command (in backticks) that retries the merge for this worktree.
 */
export async function mergeWorktree(
  rec: WorktreeRecord,
  repoRoot: string,
  env: NodeJS.ProcessEnv,
  signal?: AbortSignal,
  retry = "`keel worktree exit --action merge`",
): Promise<MergeOutcome> {
  const main = await committingGitAt(repoRoot, env, signal);
  const fail = (message: string, changedFiles: string[] = []): MergeOutcome => ({ ok: false, message, changedFiles });
  if (!(await resolveRef(main, `refs/heads/${rec.baseBranch}`)))
    return fail(
      `Worktree "${rec.name}" was created from ${rec.baseBranch === rec.baseCommit ? "a detached HEAD" : `branch ${rec.baseBranch}, which no longer exists`}, so there is no branch to merge into. Nothing was changed. Use \`keel worktree exit --action keep\` and merge ${rec.branch} by hand.`,
    );
  const current = await currentBranch(main);
  if (current !== rec.baseBranch)
    return fail(
      `The main checkout (${repoRoot}) is on ${current === undefined ? "a detached HEAD" : `branch ${current}`}, not ${rec.baseBranch} (where worktree "${rec.name}" came from). Nothing was changed. Run \`git switch ${rec.baseBranch}\` in the main checkout and retry, or keep the worktree.`,
    );
  const dirty = await statusLines(main, false);
  if (dirty.length)
    return fail(
      `The main checkout has uncommitted changes (${summarize(dirty)}). Nothing was changed and worktree "${rec.name}" is intact. Commit or stash those changes in ${repoRoot}, then run ${retry} again.`,
    );
  const merging = await committingGitAt(repoRoot, env, signal, await submoduleIgnoreOverrides(main, repoRoot));

  const wt = await committingGitAt(rec.path, env, signal);
  await commitAll(wt, `keel: work from worktree ${rec.name}`);
  const range = await mergeRange(main, rec);
  const changedFiles = await diffNames(main, range);
  const inTheWay = await untrackedIn(main, await diffNames(main, range, ["-z"]));
  if (inTheWay.length)
    return fail(
      `The main checkout (${repoRoot}) has untracked ${inTheWay.length === 1 ? "file" : "files"} ${inTheWay.map((f) => shownPath(f)).join(", ")} that the merge of ${rec.branch} would overwrite. Nothing was changed; your work is committed on ${rec.branch} (worktree "${rec.name}" is intact at ${rec.path}). ` +
        `Move or commit ${inTheWay.length === 1 ? "that file" : "those files"} in the main checkout, then run ${retry} again.`,
      changedFiles,
    );
  try {
    await merging.raw(["merge", "--no-ff", "--no-edit", "-m", `Merge keel worktree ${rec.name} (${rec.branch}) into ${rec.baseBranch}`, branchRef(rec.branch)]);
  } catch (error) {
    const conflicts = await diffNames(main, undefined, ["--diff-filter=U"]).catch(() => []);
    const inProgress = await resolveRef(main, "MERGE_HEAD");
    if (inProgress) await merging.raw(["merge", "--abort"]);
    const reason = conflicts.length ? `it conflicts in ${conflicts.join(", ")}` : firstLines(errorMessage(error));
    return fail(
      `Merging ${rec.branch} into ${rec.baseBranch} failed: ${reason}. The merge was aborted: ${rec.baseBranch} is unchanged and your work is committed on ${rec.branch} (worktree "${rec.name}" is intact at ${rec.path}). ` +
        `To resolve: in the worktree run \`git merge ${branchRef(rec.baseBranch)}\` (or \`git rebase ${branchRef(rec.baseBranch)}\`), fix the conflicts and commit, then run ${retry} again; or merge ${rec.branch} by hand.`,
      changedFiles,
    );
  }
  return {
    ok: true,
    message: `Merged ${rec.branch} into ${rec.baseBranch} (${changedFiles.length} file${changedFiles.length === 1 ? "" : "s"} changed).`,
    changedFiles,
  };
}

/**
 * The range whose diff is what merging the worktree's branch brings: `base...branch` (from their merge-base). When
 * the branch is already merged — a merge killed right after `git merge`, run again — that merge-base is the branch
 * itself (nothing left to bring), so the range is the one of the merge that brought it: the first commit on the
 * base's first-parent line since the tip with the tip as a later parent, from its first parent (`M^1...tip`); an
 * unmerged branch has no such commit (the walk covers only the base's commits since the fork).
 */
async function mergeRange(git: SimpleGit, rec: WorktreeRecord): Promise<string> {
  const pending = `${branchRef(rec.baseBranch)}...${branchRef(rec.branch)}`;
  const tip = await resolveRef(git, branchRef(rec.branch));
  if (!tip) return pending;
  const lines = await git.raw(["rev-list", "--first-parent", "--parents", `${tip}..${branchRef(rec.baseBranch)}`]).catch(() => "");
  for (const line of lines.split("\n")) {
    const [, first, ...others] = line.trim().split(" ");
    if (first && others.includes(tip)) return `${first}...${tip}`;
  }
  return pending;
}

/**
 * `git diff --name-only [range] [extra]` as a list (never looking inside submodules): names as git
 * shows them (a name with a newline or other unusual bytes in git's quotes), or exactly as they are
 * with `-z` in `extra`.
 */
export async function diffNames(git: SimpleGit, range?: string, extra: string[] = []): Promise<string[]> {
  const out = await git.raw(["diff", "--name-only", NO_SUBMODULE_STATUS, ...extra, ...(range ? [range] : [])]);
  if (extra.includes("-z")) return out.split("\0").filter(Boolean);
  return out
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
}

/**
 * The untracked (not ignored) files of the main checkout among `files` (exact names, from `diffNames`
 * with `-z`). Each is a literal pathspec: a file named `*` or `:(glob)**` names only itself.
 */
async function untrackedIn(git: SimpleGit, files: string[]): Promise<string[]> {
  if (!files.length) return [];
  const out = await git.raw(["ls-files", "-z", "--others", "--exclude-standard", "--", ...files.map((f) => `:(literal)${f}`)]);
  return out.split("\0").filter(Boolean);
}

function summarize(lines: string[]): string {
  const files = lines.map((l) => l.slice(3));
  return files.length > 5 ? `${files.slice(0, 5).join(", ")} and ${files.length - 5} more` : files.join(", ");
}

function firstLines(text: string): string {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(0, 3)
    .join(" ");
}
