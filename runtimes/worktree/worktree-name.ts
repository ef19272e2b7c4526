import { UsageError } from "../../core/index.js";

/** Longest accepted worktree name. */
export const MAX_WORKTREE_NAME = 64;

/**
 * Checks a worktree name before anything touches the disk: `[A-Za-z0-9._-]`, 1–64 characters,
 * no `..`, not starting with `.` or `-`, not ending with `.lock` or `.` (so `keel/<name>` is a
 * valid branch). Returns the reason it is invalid, or undefined when it is fine. Never throws.
 */
export function worktreeNameProblem(name: string): string | undefined {
  if (typeof name !== "string" || name.length === 0) return "the name is empty";
  if (name.length > MAX_WORKTREE_NAME) return `the name is ${name.length} characters long; at most ${MAX_WORKTREE_NAME} are allowed`;
  if (name.includes("..")) return 'the name contains ".."';
  const bad = [...name].find((c) => !/[A-Za-z0-9._-]/.test(c));
  if (bad !== undefined) return `the name contains ${JSON.stringify(bad)}; only letters, digits, ".", "_" and "-" are allowed`;
  if (name.startsWith(".") || name.startsWith("-")) return 'the name must not start with "." or "-"';
  if (name.endsWith(".lock") || name.endsWith(".")) return 'the name must not end with ".lock" or "."';
  return undefined;
}

/** Throws UsageError naming the problem when the worktree name is invalid. */
export function assertWorktreeName(name: string): void {
  const problem = worktreeNameProblem(name);
  if (problem) throw new UsageError(`Invalid worktree name ${JSON.stringify(name)}: ${problem}. Example: "preview" or "fix-login.v2".`);
}

/** A fresh default name such as `wt-20261122-031129`. */
export function defaultWorktreeName(now = new Date()): string {
  const iso = now.toISOString();
  return `wt-${iso.slice(0, 10).replace(/-/g, "")}-${iso.slice(11, 19).replace(/:/g, "")}`;
}

/** Timestamp used in discarded refs: `20261122T031129123Z` (sortable, valid in a ref name). */
export function refTimestamp(now = new Date()): string {
  return now.toISOString().replace(/[-:]/g, "").replace(".", "");
}
