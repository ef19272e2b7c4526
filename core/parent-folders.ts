import { lstatSync, realpathSync, type Stats } from "node:fs";
import { basename, dirname, join } from "node:path";
import { othersWrite } from "./foreign-owner.js";
import { privateGroupJudge } from "./private-group.js";

/**
 * Why a folder above `path` lets another user swap `path` for something of theirs (rename it away and put their own
 * in its place, or a link to it), or undefined when none does — as ssh checks every folder above a key file up to
 * `/`. Each folder above `path`, as written and where it really leads, must belong to `owners` (you or root) and be
 * writable by no other user (see `othersWrite`), except a sticky folder (`/tmp`) that holds an entry of yours on the
 * way: the sticky bit lets only that entry's owner rename or remove it. A link on the way must be yours too. A
 * missing folder is skipped (keel makes it). Undefined when `owners` is (a platform without user ids). Never throws.
 */
export function parentsProblem(path: string, owners: ReadonlySet<number> | undefined, judge = privateGroupJudge()): string | undefined {
  if (owners === undefined) return undefined;
  const real = realOf(path);
  for (const start of real !== undefined && real !== path ? [path, real] : [path]) {
    let child = start;
    for (let dir = dirname(start); ; child = dir, dir = dirname(dir)) {
      const problem = folderProblem(dir, child, start, owners, judge);
      if (problem !== undefined) return problem;
      if (dirname(dir) === dir) break;
    }
  }
  return undefined;
}

function folderProblem(
  dir: string,
  child: string,
  path: string,
  owners: ReadonlySet<number>,
  judge: (uid: number, gid: number) => boolean,
): string | undefined {
  const stat = lstatOf(dir);
  if (stat === undefined) return undefined;
  if (!owners.has(stat.uid)) return `${dir}, a folder above ${path}, belongs to another user (uid ${stat.uid}), who can rename what is in it`;
  if (!stat.isDirectory()) return undefined; // a link of yours: the real path is checked too
  const writers = othersWrite(dir, stat, judge);
  if (writers === undefined) return undefined;
  const held = lstatOf(child);
  if ((stat.mode & 0o1000) !== 0 && (held === undefined || owners.has(held.uid))) return undefined;
  return `${writers}, a folder above ${path}, so another user can rename what is in it`;
}

function lstatOf(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** The real path of `path`, or of its nearest existing folder above with the rest joined on; undefined when none resolves. */
function realOf(path: string): string | undefined {
  const missing: string[] = [];
  for (let at = path; ; at = dirname(at)) {
    try {
      return join(realpathSync.native(at), ...missing);
    } catch {
      if (dirname(at) === at) return undefined;
      missing.unshift(basename(at));
    }
  }
}
