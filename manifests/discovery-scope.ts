import { realpathSync, statSync } from "node:fs";
import { isAbsolute, relative, sep } from "node:path";
import { ancestorsWithin, inside, realOrSelf } from "../core/index.js";

/** Folder names manifest discovery never descends into or reads from (a dependency's or git's files are not the user's). */
export const EXCLUDED_DIR_NAMES: ReadonlySet<string> = new Set(["node_modules", ".git"]);

/**
 * True when a relative path passes through a folder discovery must not read from: `node_modules/`,
 * `.git/` or `.keel/worktrees/` (managed worktrees are checkouts, not the workspace's own files).
 * `rel` uses either separator; an empty path is not excluded. Never throws.
 */
export function passesExcludedDir(rel: string): boolean {
  const segments = rel.split(/[\\/]+/).filter((s) => s && s !== ".");
  return segments.some((s, i) => EXCLUDED_DIR_NAMES.has(s) || (s === ".keel" && segments[i + 1] === "worktrees"));
}

/** True when `path` (absolute) lies below `root` inside `node_modules/`, `.git/` or `.keel/worktrees/`; false outside `root`. Never throws. */
export function isExcludedBelow(root: string, path: string): boolean {
  const rel = relative(root, path);
  if (!rel || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return false;
  return passesExcludedDir(rel);
}

/**
 * The directories manifest discovery reads, nearest first: the working directory and its ancestors
 * up to the workspace root (never above it), minus every one inside `node_modules/`, `.git/` or
 * `.keel/worktrees/` (so starting keel inside a dependency or a worktree reads none of their files).
 */
export function discoveryDirs(cwd: string, root: string): string[] {
  return ancestorsWithin(cwd, root).filter((dir) => !isExcludedBelow(root, dir));
}

/**
 * When `file` (a workspace manifest found in a discovery directory) is a link resolving inside
 * `node_modules/`, `.git/` or `.keel/worktrees/` below `root`, or outside `root` altogether: a
 * diagnostic message saying it was skipped and what to do; otherwise undefined (also when it cannot
 * be resolved). Never throws.
 */
export function linkedIntoExcluded(root: string, file: string): string | undefined {
  let real: string;
  try {
    real = realpathSync.native(file);
  } catch {
    return undefined;
  }
  return linkedManifestProblem(root, real);
}

/**
 * Why a workspace manifest whose real path is `real` is not read: it lies in an excluded folder, or
 * outside `root` (a committed link to another project's file or to a secret: its parse errors would
 * quote it, its text could reach the model). A device or FIFO outside is left to the bounded reader,
 * which refuses it by kind. Undefined when it may be read. Never throws.
 */
export function linkedManifestProblem(root: string, real: string): string | undefined {
  if (isExcludedBelow(root, real)) return excludedLinkMessage(real);
  if (inside(realOrSelf(root), real)) return undefined;
  try {
    const st = statSync(real);
    if (!st.isFile() && !st.isDirectory()) return undefined;
  } catch {
    return undefined;
  }
  return `This manifest is a link to ${real}, outside the workspace; keel reads a workspace's manifests only from files inside it, so it was skipped. Copy the file into the workspace to use it.`;
}

/** The diagnostic text for a manifest skipped because it links to `real`, inside an excluded folder. */
export function excludedLinkMessage(real: string): string {
  return `This manifest is a link to ${real}, inside node_modules/, .git/ or .keel/worktrees/, which keel never reads manifests from; it was skipped. Copy the file into the workspace to use it.`;
}
