import { lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";
import { userFileProblem } from "./foreign-owner.js";
import { parentsProblem } from "./parent-folders.js";
import { privateGroupJudge } from "./private-group.js";

/** Most files and folders `userTreeProblem` looks at in one tree; a bigger tree is refused (it cannot be checked). */
export const MAX_USER_TREE_ENTRIES = 20_000;
/** Deepest folder `userTreeProblem` walks into; a deeper tree is refused. */
const MAX_DEPTH = 40;

/**
 * Why the folder tree `root` (a user-level plugin or skill folder, whose every file keel may run or give the model
 * as yours: a hook's script, a module a code plugin imports, an MCP server's script, a skill's scripts) may not
 * speak for you, or undefined when it may: an entry in it that another user owns or may write (see
 * `userFileProblem`). Links are judged where they lead as well — the file or folder they reach (walked in turn)
 * and, when that lies outside `root`, the folders above it (see `parentsProblem`). The walk is bounded
 * (`MAX_USER_TREE_ENTRIES` entries, 40 levels): a bigger tree is refused, as what cannot be checked fails closed.
 * Undefined when `owners` is (a platform without user ids). Never throws.
 */
export function userTreeProblem(root: string, owners: ReadonlySet<number> | undefined): string | undefined {
  if (owners === undefined) return undefined;
  const judge = privateGroupJudge();
  const realRoot = realOf(root) ?? root;
  const walked = new Set<string>();
  const stack: { path: string; depth: number }[] = [{ path: root, depth: 0 }];
  let count = 0;
  while (stack.length > 0) {
    const { path, depth } = stack.pop()!;
    if (++count > MAX_USER_TREE_ENTRIES)
      return `${root} holds more than ${MAX_USER_TREE_ENTRIES} files and folders, more than keel checks for other users' files`;
    const problem = userFileProblem(path, owners, judge);
    if (problem !== undefined) return problem;
    const real = realOf(path);
    if (real === undefined) continue; // a dangling link leads nowhere keel reads
    // a link leading out of the tree (the root itself may be one): who may rename what is above where it leads?
    // (the entries of a folder so reached are judged by that folder's own check)
    if (isLink(path) && !(path !== root && inside(realRoot, real))) {
      const above = parentsProblem(real, owners, judge);
      if (above !== undefined) return above;
    }
    if (!isFolder(real) || walked.has(real)) continue;
    walked.add(real);
    if (depth >= MAX_DEPTH) return `${root} is more than ${MAX_DEPTH} folders deep, more than keel checks for other users' files`;
    let names: string[];
    try {
      names = readdirSync(path);
    } catch {
      return `${path} cannot be listed, so keel cannot check that its files are yours`;
    }
    for (const name of names) stack.push({ path: join(path, name), depth: depth + 1 });
  }
  return undefined;
}

function inside(top: string, path: string): boolean {
  const rel = relative(top, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function realOf(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}
