import { lstatSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { foreignOwner, othersMayWrite, yourOwners } from "./foreign-owner.js";

/**
 * What `<dir>/.git` is, as git sees it when it looks for a repository: a `"file"` (a gitdir
 * pointer), a `"dir"`, or undefined when there is none. An empty `.git` folder (the read-only
 * placeholder the sandbox keeps where a workspace has no `.git`) is no repository, so undefined:
 * git looks past it to the enclosing one. Never throws.
 */
export function gitMarkerAt(dir: string): "file" | "dir" | undefined {
  const dotGit = join(dir, ".git");
  try {
    const stat = lstatSync(dotGit);
    if (stat.isFile()) return "file";
    if (!stat.isDirectory() || readdirSync(dotGit).length === 0) return undefined;
    return "dir";
  } catch {
    return undefined;
  }
}

/**
 * The nearest directory from `dir` up whose `.git` `gitMarkerAt` sees (or a link to a file or a
 * non-empty folder, which git follows), or undefined: where keel starts its own git. Never a folder
 * whose `.git` is missing or the sandbox's empty placeholder: git takes such a folder itself for a
 * bare repository once it holds `HEAD`, `objects/` and `refs/` (which a sandboxed command can write
 * there) and runs what its `config` says. Undefined too when that `.git` or its folder belongs to
 * another user (see `foreignOwner`; `owners` defaults to this process's): a repository someone made
 * above your folder (`/tmp/.git`) is not yours for keel to branch and commit in, even where your git
 * config trusts every folder (`safe.directory=*`); nor is one of yours in a folder other users may write
 * (every user, or a group not its owner's alone: see `othersMayWrite`; its work tree holds what they put there,
 * `.gitattributes` included), which resolveWorkspace passes
 * over as a marker too. `dir` itself is not checked: callers pass the workspace
 * root, whose `.git` resolveWorkspace has checked (another user's only where your safe.directory lists
 * the root). Never throws.
 */
export function gitTopAt(dir: string, owners: ReadonlySet<number> | undefined = yourOwners(process.env)): string | undefined {
  for (let d = dir; ; d = dirname(d)) {
    if (gitMarkerAt(d) || linkedGitAt(d))
      return d === dir ||
        (foreignOwner(d, owners) === undefined &&
          foreignOwner(join(d, ".git"), owners) === undefined &&
          (owners === undefined || othersMayWrite(d) === undefined))
        ? d
        : undefined;
    if (dirname(d) === d) return undefined;
  }
}

/** True when `<dir>/.git` is a link to a file or a non-empty folder. Never throws. */
function linkedGitAt(dir: string): boolean {
  const dotGit = join(dir, ".git");
  try {
    if (!lstatSync(dotGit).isSymbolicLink()) return false;
    const stat = statSync(dotGit);
    return stat.isFile() || (stat.isDirectory() && readdirSync(dotGit).length > 0);
  } catch {
    return false;
  }
}
