import { statSync, type Stats } from "node:fs";
import { dirname } from "node:path";
import { othersWrite } from "./foreign-owner.js";
import { parentsProblem } from "./parent-folders.js";
import { realTarget } from "./real-path.js";

/**
 * Why another user could put a file of theirs at `path`, which does not exist (a script named before it is made, or
 * a link whose target is missing), or undefined when none could (or it exists: `userFileProblem` judges it): the
 * nearest existing folder where it would land — followed through a dangling link, as a write would be — lets other
 * users add entries (every user, `/tmp` whose sticky bit only guards what is already there, or a group not its
 * owner's alone: see `othersWrite`), or a folder above that lets them rename what is in it (`parentsProblem`). keel
 * then runs what they put there as yours when it runs `path`. Undefined when `owners` is. Never throws.
 */
export function missingFileProblem(path: string, owners: ReadonlySet<number> | undefined, judge: (uid: number, gid: number) => boolean): string | undefined {
  if (owners === undefined || statOf(path) !== undefined) return undefined;
  const target = realTarget(path);
  for (let dir = dirname(target); ; dir = dirname(dir)) {
    const stat = statOf(dir);
    if (stat !== undefined) {
      const writers = stat.isDirectory() ? othersWrite(dir, stat, judge) : undefined;
      if (writers !== undefined) return `${path} does not exist, and ${writers}, so another user can put theirs at ${target}`;
      return target === path ? undefined : parentsProblem(target, owners, judge);
    }
    if (dirname(dir) === dir) return undefined;
  }
}

function statOf(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
