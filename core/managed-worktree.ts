import { lstatSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { gitMarkerAt } from "./git-marker.js";

/**
 * True when `<root>/.keel/worktrees/<name>` is a linked git worktree of the repository `root`
 * belongs to, judged from git's own files (never runs git, never throws): the directory is no
 * symlink (nor is any folder above it below `root`), its `.git` is a file pointing into
 * `<common git dir>/worktrees/`, that entry points back at it, and the common git dir is the one
 * of the repository holding `root`. A directory a repository merely contains (committed files, a
 * submodule, a worktree of another repository) is not one.
 */
export function isManagedWorktree(root: string, name: string): boolean {
  const dir = join(root, ".keel", "worktrees", name);
  try {
    if (realpathSync.native(dir) !== join(realpathSync.native(root), ".keel", "worktrees", name)) return false;
    const gitFile = join(dir, ".git");
    if (!lstatSync(gitFile).isFile()) return false;
    const gitdir = realpathSync.native(resolve(dir, pointer(gitFile)));
    const back = readFileSync(join(gitdir, "gitdir"), "utf8").trim();
    if (realpathSync.native(dirname(resolve(gitdir, back))) !== realpathSync.native(dir)) return false;
    const common = commonDirOf(gitdir);
    const owner = repositoryCommonDir(root);
    return owner !== undefined && common === owner && dirname(gitdir) === join(common, "worktrees");
  } catch {
    return false;
  }
}

/** The real common git directory of the repository holding `dir` (nearest ancestor with `.git`), or undefined. */
function repositoryCommonDir(dir: string): string | undefined {
  for (let d = dir; ; d = dirname(d)) {
    const dotGit = join(d, ".git");
    const marker = gitMarkerAt(d);
    if (marker === "dir") return realpathSync.native(dotGit);
    if (marker === "file") return commonDirOf(realpathSync.native(resolve(d, pointer(dotGit))));
    if (dirname(d) === d) return undefined;
  }
}

/** A git dir's common dir (its `commondir` file for a linked worktree, else itself), as a real path. */
function commonDirOf(gitdir: string): string {
  let rel: string;
  try {
    rel = readFileSync(join(gitdir, "commondir"), "utf8").trim();
  } catch {
    return gitdir;
  }
  return realpathSync.native(resolve(gitdir, rel));
}

/** The target of a `.git` file (`gitdir: <path>`). Throws when the file says something else. */
function pointer(gitFile: string): string {
  const match = /^gitdir: (.+)$/m.exec(readFileSync(gitFile, "utf8"));
  if (!match) throw new Error(`${gitFile} is not a gitdir pointer`);
  return match[1]!.trim();
}
