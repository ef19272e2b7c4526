import { lstatSync, readdirSync, realpathSync, statSync, type Stats } from "node:fs";
import { basename, isAbsolute, join, relative, sep } from "node:path";
import { othersWrite, userFileProblem, userItemRefusal } from "./foreign-owner.js";
import { missingFileProblem } from "./missing-file.js";
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
 * and, when that lies outside `root`, the folders above it (see `parentsProblem`); a link whose target is missing,
 * the folder it would land in (see `missingFileProblem`: `/tmp`, where another user could make it). The walk is bounded
 * (`MAX_USER_TREE_ENTRIES` entries, 40 levels): a bigger tree is refused, as what cannot be checked fails closed.
 * Undefined when `owners` is (a platform without user ids). Never throws.
 */
export function userTreeProblem(root: string, owners: ReadonlySet<number> | undefined): string | undefined {
  if (owners === undefined) return undefined;
  const judge = privateGroupJudge();
  const realRoot = realOf(root) ?? root;
  const walked = new Set<string>();
  // `in`: the real path of the folder listed (an entry that is no link is really there: no realpath, whose cost grows with depth)
  const stack: { path: string; depth: number; in?: string }[] = [{ path: root, depth: 0 }];
  let count = 0;
  while (stack.length > 0) {
    const { path, depth, in: folder } = stack.pop()!;
    if (++count > MAX_USER_TREE_ENTRIES) return tooBig(`${root} holds more than ${MAX_USER_TREE_ENTRIES} files and folders`);
    // One lstat judges an entry that is no link (it is what a stat would show); a link is judged as itself and where it leads.
    const stat = lstatOf(path);
    if (stat === undefined) continue; // gone since its folder was listed: nothing there to run
    const linked = stat.isSymbolicLink();
    const problem = linked ? userFileProblem(path, owners, judge) : entryProblem(path, stat, owners, judge);
    if (problem !== undefined) return problem;
    const real = linked || folder === undefined ? realOf(path) : join(folder, basename(path));
    if (real === undefined) {
      // a dangling link leads nowhere keel reads yet: unless another user may put what it leads to there
      const missing = linked ? missingFileProblem(path, owners, judge) : undefined;
      if (missing !== undefined) return missing;
      continue;
    }
    // a link leading out of the tree (the root itself may be one): who may rename what is above where it leads?
    // (the entries of a folder so reached are judged by that folder's own check)
    if (linked && !(path !== root && inside(realRoot, real))) {
      const above = parentsProblem(real, owners, judge);
      if (above !== undefined) return above;
    }
    if (!(linked ? isFolder(real) : stat.isDirectory()) || walked.has(real)) continue;
    walked.add(real);
    if (depth >= MAX_DEPTH) return tooBig(`${root} is more than ${MAX_DEPTH} folders deep`);
    let names: string[];
    try {
      names = readdirSync(path);
    } catch {
      return `${path} cannot be listed, so keel cannot check that its files are yours`;
    }
    for (const name of names) stack.push({ path: join(path, name), depth: depth + 1, in: real });
  }
  return undefined;
}

/** The start of every problem `userTreeProblem` gives for a tree too big or deep to check (see `userTreeRefusal`). */
const TOO_BIG = "too big to check: ";

function tooBig(what: string): string {
  return `${TOO_BIG}${what}, more than keel checks for other users' files`;
}

/**
 * The message for a user-level plugin or skill (`what`, e.g. "The user-level plugin /home/me/.keel/plugins/p") that
 * `userTreeProblem` refused with `problem`: for a tree too big or deep to check, what makes it checkable (ownership
 * advice would not help); else `userItemRefusal`'s.
 */
export function userTreeRefusal(what: string, problem: string): string {
  if (!problem.startsWith(TOO_BIG)) return userItemRefusal(what, problem);
  return `${what} was skipped: ${problem.slice(TOO_BIG.length)} (keel runs none of a user-level plugin or skill until it has checked that all of it is yours). Make the folder smaller: install only what the plugin runs (\`npm ci --omit=dev\` or \`npm prune --omit=dev\` in it: dev dependencies are most of a node_modules/), bundle it into one file, or move what it does not need out of the folder.`;
}

function inside(top: string, path: string): boolean {
  const rel = relative(top, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** `userFileProblem` for an entry that is no link, from its lstat: another user owns it, or another user may write it. */
function entryProblem(path: string, stat: Stats, owners: ReadonlySet<number>, judge: (uid: number, gid: number) => boolean): string | undefined {
  if (!owners.has(stat.uid)) return `${path} belongs to another user (uid ${stat.uid})`;
  return othersWrite(path, stat, judge);
}

function lstatOf(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
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
