import { lstatSync, realpathSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { errorMessage, realOrSelf } from "../../core/index.js";
import { worktreeNameProblem } from "./worktree-name.js";
import type { WorktreeRecord, WorktreeState } from "./worktree-state.js";

/** A record that passed every check. Its `path` is derived from its name (`<worktrees dir>/<name>`), never the stored one. */
export interface CheckedWorktree {
  record: WorktreeRecord;
  /** False when the directory is gone (a stale entry `keel worktree gc` prunes). */
  exists: boolean;
}

/** A stored record keel ignores: forged, foreign or malformed. Nothing is ever done at its path. */
export interface IgnoredWorktree {
  /** Position in the file's `worktrees` array. */
  index: number;
  name: string;
  /** The stored path, for display only. */
  path: string;
  reason: string;
}

/** The records of a worktree state, split into those keel may use and those it ignores. */
export interface CheckedWorktrees {
  valid: Map<string, CheckedWorktree>;
  ignored: IgnoredWorktree[];
}

/**
 * Checks every record of `.keel/state/worktrees.json` — a file a repository can commit, so never
 * trusted: the name must be valid, the stored path exactly `<worktreesDir>/<name>`, the branch
 * `keel/<name>`, the base a commit id and a plain branch name; an existing directory must be its own
 * real path (no symlink leading out) and listed by `listWorktrees` (git's worktrees of this
 * repository, asked at most once and only when some directory exists). Never throws; a failing
 * listing rejects the records that needed it.
 */
export async function checkWorktrees(state: WorktreeState, worktreesDir: string, listWorktrees: () => Promise<string[]>): Promise<CheckedWorktrees> {
  const valid = new Map<string, CheckedWorktree>();
  const ignored: IgnoredWorktree[] = [];
  const needGit: { index: number; record: WorktreeRecord }[] = [];
  state.worktrees.forEach((raw, index) => {
    const name = String(raw.name);
    const reject = (reason: string) => ignored.push({ index, name, path: String(raw.path), reason });
    const problem = recordFieldProblem(raw, worktreesDir);
    if (problem) return reject(problem);
    if (valid.has(name) || needGit.some((n) => n.record.name === name)) return reject(`a second entry is named "${name}"`);
    const record: WorktreeRecord = { ...raw, path: join(worktreesDir, name) };
    const where = directoryProblem(record.path);
    if (where === "missing") valid.set(name, { record, exists: false });
    else if (where) reject(where);
    else needGit.push({ index, record });
  });
  if (needGit.length) {
    let listed: Set<string> | undefined;
    let failure = "";
    try {
      listed = new Set((await listWorktrees()).map(realOrSelf));
    } catch (error) {
      failure = errorMessage(error).split("\n")[0]!;
    }
    for (const { index, record } of needGit) {
      if (listed?.has(record.path)) valid.set(record.name, { record, exists: true });
      else
        ignored.push({
          index,
          name: record.name,
          path: record.path,
          reason: listed ? `git does not list ${record.path} as a worktree of this repository` : `git could not list this repository's worktrees (${failure})`,
        });
    }
  }
  ignored.sort((a, b) => a.index - b.index);
  return { valid, ignored };
}

/** Why a stored record's fields are not those keel writes for a worktree of that name, or undefined. Pure; never throws. */
export function recordFieldProblem(raw: WorktreeRecord, worktreesDir: string): string | undefined {
  const problem = worktreeNameProblem(raw.name);
  if (problem) return `its name is invalid (${problem})`;
  const expected = join(worktreesDir, raw.name);
  // keel stores the real path it created; the stored path is only compared, never looked at on disk.
  if (typeof raw.path !== "string" || !isAbsolute(raw.path) || resolve(raw.path) !== expected)
    return `its path ${JSON.stringify(raw.path)} is not ${expected}, where keel keeps a worktree of that name`;
  if (raw.branch !== `keel/${raw.name}`) return `its branch ${JSON.stringify(raw.branch)} is not keel/${raw.name}`;
  if (typeof raw.baseCommit !== "string" || !/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(raw.baseCommit))
    return `its base commit ${JSON.stringify(raw.baseCommit)} is not a commit id`;
  if (raw.baseBranch !== raw.baseCommit && refNameProblem(raw.baseBranch)) return `its base branch ${JSON.stringify(raw.baseBranch)} is not a branch name`;
  if (raw.mode !== "entered" && raw.mode !== "created") return `its mode ${JSON.stringify(raw.mode)} is neither "entered" nor "created"`;
  return undefined;
}

/** The diagnostic (and error) for an ignored record: names the file and the entry, says it was ignored and how to drop it. */
export function ignoredWorktreeMessage(bad: IgnoredWorktree, file: string, active: boolean): string {
  return (
    `Ignored worktree entry "${bad.name}" (worktrees[${bad.index}]) in ${file}: ${bad.reason}. keel never enters, merges, discards or removes it.` +
    `${active ? " It is named as the active worktree; keel stays in the main checkout." : ""} Only worktrees keel created under .keel/worktrees/ count; ` +
    "a repository can commit this file, so if you did not create the entry, run `keel worktree gc` to drop it."
  );
}

/** The error for an active worktree whose directory vanished: names it and the way out. */
export function goneMessage(rec: WorktreeRecord): string {
  return `The active worktree "${rec.name}" is gone (${rec.path} no longer exists), so keel will not run tools in its place (not in the main checkout either). Run \`keel worktree gc\` to clear it (branch ${rec.branch} is kept), then continue in the main checkout or \`keel worktree enter\` again.`;
}

/**
 * The error for a name whose folder under .keel/worktrees/ keel has no record of (a keel process killed while
 * creating it, or a folder put there by hand): what it is and how to clear it.
 */
export function unrecordedMessage(name: string, path: string, branch: string): string {
  return `${path} exists but keel has no record of worktree "${name}" (a keel process killed while creating it leaves one). Save anything you want from it, then remove it with \`git worktree remove --force ${path}\` and \`git branch -D ${branch}\`, or pick another name.`;
}

/** "missing" when nothing is at `dir`, a reason when something other than a plain directory at its own real path is, else undefined. */
function directoryProblem(dir: string): string | undefined {
  let real: string;
  try {
    const stat = lstatSync(dir);
    if (stat.isSymbolicLink()) return `${dir} is a symlink, not a folder of its own under .keel/worktrees/`;
    if (!stat.isDirectory()) return `${dir} is not a directory`;
    real = realpathSync.native(dir);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? "missing" : `${dir} cannot be checked (${errorMessage(error)})`;
  }
  return real === dir ? undefined : `${dir} resolves to ${real} (a symlink on the way), not a folder of its own under .keel/worktrees/`;
}

/** True when `name` is not usable as a branch argument (option-like, revision syntax, control characters). */
function refNameProblem(name: unknown): boolean {
  return (
    typeof name !== "string" ||
    name === "" ||
    name.startsWith("-") ||
    name.includes("..") ||
    name.includes("@{") ||
    /[\s~^:?*[\\\u0000-\u001f\u007f]/.test(name) ||
    name.endsWith(".lock") ||
    name.endsWith("/")
  );
}
