import type { WorktreeInfo } from "../../core/index.js";
import { gitAt, resolveRef, statusLines } from "./git-client.js";
import type { CheckedWorktrees } from "./worktree-check.js";
import { pushHistory, type WorktreeRecord, type WorktreeState } from "./worktree-state.js";

/** What to do with a worktree when leaving it. */
export type WorktreeAction = "keep" | "merge" | "discard";

/** `worktree_status` / `keel worktree status`. */
export interface WorktreeStatusReport {
  active: (WorktreeInfo & { uncommitted: string[]; unmergedCommits: number; changedFiles: string[] }) | null;
  /** Number of managed worktrees recorded for the workspace (ignored entries not counted). */
  managed: number;
  /** Set when the active worktree's directory vanished: the error tool calls get, naming `keel worktree gc`. */
  problem?: string;
}

/** One row of `keel worktree list`. */
export interface WorktreeListRow extends WorktreeRecord {
  active: boolean;
  /** False when the directory is gone (a stale entry `keel worktree gc` prunes), and for ignored entries (never looked at). */
  exists: boolean;
  /** Set for an entry keel ignores (forged, foreign or malformed): why. `keel worktree gc` drops it. */
  ignored?: string;
}

/** The rows of `keel worktree list`: every checked record, flagged active and existing, then the ignored entries with the reason. */
export function listRows(state: WorktreeState, checked: CheckedWorktrees): WorktreeListRow[] {
  const rows: WorktreeListRow[] = [...checked.valid.values()].map(({ record, exists }) => ({ ...record, active: state.active === record.name, exists }));
  for (const bad of checked.ignored) {
    const raw = state.worktrees[bad.index]!;
    const text = (v: unknown) => (typeof v === "string" ? v : "");
    rows.push({
      name: bad.name,
      path: bad.path,
      branch: text(raw.branch),
      baseBranch: text(raw.baseBranch),
      baseCommit: text(raw.baseCommit),
      createdAt: text(raw.createdAt),
      mode: raw.mode,
      active: false,
      exists: false,
      ignored: bad.reason,
    });
  }
  return rows;
}

/**
 * Drops from `s` the records whose directory is gone and the ignored ones (recording each in the
 * history; nothing at their paths is touched), clears an active name left without a record, and
 * returns the dropped names.
 */
export function pruneRecords(s: WorktreeState, checked: CheckedWorktrees): string[] {
  const keep = (i: number) => !checked.ignored.some((b) => b.index === i) && checked.valid.get(s.worktrees[i]!.name)?.exists === true;
  const at = new Date().toISOString();
  const pruned: string[] = [];
  s.worktrees.forEach((w, i) => {
    if (keep(i)) return;
    pruned.push(w.name);
    const bad = checked.ignored.find((b) => b.index === i);
    const message = bad
      ? `Dropped an ignored entry (${bad.reason}); nothing at its path was touched.`
      : `Pruned stale entry (directory ${w.path} was gone; branch ${w.branch} kept).`;
    pushHistory(s, { name: w.name, branch: String(w.branch), baseBranch: String(w.baseBranch), action: "gc", ok: true, at, message });
  });
  s.worktrees = s.worktrees.filter((_, i) => keep(i));
  if (s.active && !s.worktrees.some((w) => w.name === s.active)) s.active = null;
  return pruned;
}

/** Removes a checked record's worktree (forced) and its branch. */
export async function removeWorktree(rec: WorktreeRecord, root: string, env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<void> {
  const git = await gitAt(root, { env, signal });
  await git.raw(["worktree", "remove", "--force", rec.path]);
  if (await resolveRef(git, `refs/heads/${rec.branch}`)) await git.raw(["branch", "-D", rec.branch]);
}

/** Files that differ between the worktree (including uncommitted and untracked files) and its base commit. */
export async function changedSinceBase(rec: WorktreeRecord, env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<string[]> {
  const git = await gitAt(rec.path, { env, signal });
  const { diffNames } = await import("./merge-worktree.js");
  const tracked = await diffNames(git, rec.baseCommit);
  const untracked = (await statusLines(git)).filter((l) => l.startsWith("??")).map((l) => l.slice(3));
  return [...new Set([...tracked, ...untracked])].sort();
}

/** What a record tells callers (`WorktreeInfo`). */
export function toInfo(rec: WorktreeRecord): WorktreeInfo {
  return { name: rec.name, path: rec.path, branch: rec.branch, baseBranch: rec.baseBranch, baseCommit: rec.baseCommit };
}
