import { realOrSelf, realTarget } from "./real-path.js";
import { isAbsolute, relative, sep } from "node:path";

/** Directories tool writes may never touch: git's own data (hooks, config) and keel's state. */
export const PROTECTED_DIRS: readonly string[] = [".git", ".keel"];

/**
 * The protected directory (`.git` or `.keel`) a path lies in, or undefined. Checked both on the
 * path as written and where it really resolves (the deepest existing ancestor's real path), so a
 * symlink `src/hooks → ../.git/hooks` is caught. Any `.git`/`.keel` segment below `root` counts
 * (nested repositories and workspaces too). Never throws.
 */
export function protectedDirOf(root: string, abs: string): string | undefined {
  return segmentHit(relative(root, abs)) ?? segmentHit(relative(realOrSelf(root), realTarget(abs)));
}

function segmentHit(rel: string): string | undefined {
  if (rel === "" || isAbsolute(rel)) return undefined;
  for (const seg of rel.split(sep)) if (PROTECTED_DIRS.includes(seg)) return seg;
  return undefined;
}
