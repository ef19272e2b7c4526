import { isAbsolute, relative, sep } from "node:path";
import { nameKey } from "./name-key.js";
import { realOrSelf, realTarget } from "./real-path.js";

/** Directories tool writes may never touch: git's own data (hooks, config) and keel's state. */
export const PROTECTED_DIRS: readonly string[] = [".git", ".keel"];

/** Segment keys (see `nameKey`) that name a protected directory, with NTFS's short names of them. */
const PROTECTED_KEYS: ReadonlyMap<string, string> = new Map([
  [".git", ".git"],
  [".keel", ".keel"],
  ["git~1", ".git"],
  ["keel~1", ".keel"],
]);

/**
 * The protected directory (`.git` or `.keel`) a path lies in, or undefined. Checked both on the
 * path as written and where it really resolves (the deepest existing ancestor's real path), so a
 * symlink `src/hooks → ../.git/hooks` is caught. Any `.git`/`.keel` segment below `root` counts
 * (nested repositories and workspaces too), under every name a volume that folds names may give it
 * (`.GIT`, `.git.`, `.g\u200cit`: see `nameKey`), failing closed. Never throws.
 */
export function protectedDirOf(root: string, abs: string): string | undefined {
  return segmentHit(relative(root, abs)) ?? segmentHit(relative(realOrSelf(root), realTarget(abs)));
}

function segmentHit(rel: string): string | undefined {
  if (rel === "" || isAbsolute(rel)) return undefined;
  for (const seg of rel.split(sep)) {
    const dir = PROTECTED_KEYS.get(nameKey(seg));
    if (dir !== undefined) return dir;
  }
  return undefined;
}
