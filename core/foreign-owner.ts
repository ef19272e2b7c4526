import { lstatSync, realpathSync, statSync, type Stats } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";
import { privateGroupJudge } from "./private-group.js";

/**
 * The user ids whose files keel takes as yours: your effective uid, root's (0: root can change
 * anything anyway) and, when keel runs as root under `sudo`, the invoking user's (`SUDO_UID`), as
 * git's `safe.directory` check does. Undefined where the platform has no user ids (Windows): no
 * file is foreign there.
 */
export function yourOwners(env: NodeJS.ProcessEnv): ReadonlySet<number> | undefined {
  if (typeof process.geteuid !== "function") return undefined;
  const euid = process.geteuid();
  const owners = new Set([euid, 0]);
  const sudo = env.SUDO_UID !== undefined && /^\d{1,10}$/.test(env.SUDO_UID) ? Number(env.SUDO_UID) : undefined;
  if (euid === 0 && sudo !== undefined) owners.add(sudo);
  return owners;
}

/**
 * The uid of another user owning `path` — the entry itself or, for a symbolic link, the file it
 * leads to — or undefined when `owners` own both (or `path` does not exist, or `owners` is
 * undefined). Never throws.
 */
export function foreignOwner(path: string, owners: ReadonlySet<number> | undefined): number | undefined {
  if (owners === undefined) return undefined;
  for (const stat of [statOf(lstatSync, path), statOf(statSync, path)]) if (stat !== undefined && !owners.has(stat.uid)) return stat.uid;
  return undefined;
}

/**
 * Why the user-level file or folder `path` may not speak for you, or undefined when it may (or does not exist):
 * another user owns it, or (followed through a link, which you may have made) another user may write it — every
 * user, or its group when that group is not the private group of its owner (see `privateGroupJudge`: a umask of
 * 002 with a group per user makes every file group-writable, and that is still yours alone) — as ssh's
 * StrictModes refuses such a config file. `judge` may be shared by many calls (it reads the user tables once).
 * Never throws.
 */
export function userFileProblem(
  path: string,
  owners: ReadonlySet<number> | undefined,
  judge: (uid: number, gid: number) => boolean = privateGroupJudge(),
): string | undefined {
  const owner = foreignOwner(path, owners);
  if (owner !== undefined) return `${path} belongs to another user (uid ${owner})`;
  const stat = statOf(statSync, path);
  if (owners === undefined || stat === undefined) return undefined;
  return othersWrite(path, stat, judge);
}

/**
 * Why users other than the owner may write the file or folder `path` of mode `stat`, or undefined when they may
 * not: every user may (the sticky bit of a `/tmp`-like folder still lets anyone add entries), or its group may and
 * that group is not its owner's private group.
 */
export function othersWrite(path: string, stat: Stats, judge: (uid: number, gid: number) => boolean): string | undefined {
  const writers = writersOf(stat, judge);
  return writers === undefined ? undefined : `${path} ${writers}`;
}

/** `othersWrite`'s reason without the path in front ("can be written by every user (mode 777)"), or undefined. */
function writersOf(stat: Stats, judge: (uid: number, gid: number) => boolean): string | undefined {
  const mode = (stat.mode & 0o7777).toString(8);
  if ((stat.mode & 0o002) !== 0) return `can be written by every user (mode ${mode})`;
  if ((stat.mode & 0o020) !== 0 && !judge(stat.uid, stat.gid))
    return `can be written by its group (gid ${stat.gid}, mode ${mode}), which is not a group of its owner alone`;
  return undefined;
}

/**
 * Why the user-level item `path` (a plugin's manifest or file, a command, skill or agent file under `$KEEL_HOME`) may
 * not speak for you, or undefined when it may: the first folder on its way below `top` (a user-level folder,
 * or a user-level plugin's root, already checked), or the item itself, that `userFileProblem` refuses — as
 * written and where it really leads. A path not below `top` is checked alone. Never throws.
 */
export function userItemProblem(top: string, path: string, owners: ReadonlySet<number> | undefined): string | undefined {
  if (owners === undefined) return undefined;
  const real = realOf(path);
  const realTop = realOf(top);
  const chains = [chain(top, path), ...(real !== undefined && realTop !== undefined && real !== path ? [chain(realTop, real)] : [])];
  const judge = privateGroupJudge();
  for (const steps of chains)
    for (const step of steps) {
      const problem = userFileProblem(step, owners, judge);
      if (problem !== undefined) return problem;
    }
  return undefined;
}

/** The diagnostic for a user-level item refused for `problem` (from `userItemProblem`): what it means and what to do. */
export function userItemRefusal(what: string, problem: string): string {
  return `${what} was skipped: ${problem}. keel takes your user-level files as yours, so another user could make keel run their instructions or commands with your permissions. Make it yours and writable by you only (\`chown\` it, \`chmod go-w\`; a whole folder: \`chown -R\`, \`chmod -R go-w\`).`;
}

/** The paths from just below `top` down to `path`; `[path]` when it is not below `top`. */
function chain(top: string, path: string): string[] {
  const rel = relative(top, path);
  if (rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return [path];
  const out: string[] = [];
  let at = top;
  for (const part of rel.split(sep)) out.push((at = join(at, part)));
  return out;
}

function realOf(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}

/**
 * Which users other than its owner may write `path` (followed through links), as a phrase to put after a name for it
 * ("can be written by every user (mode 1777)"; see `othersWrite`: every user, or a group that is not its owner's
 * alone; the sticky bit of `/tmp` still lets them add entries), or undefined when no other user may or it does not
 * exist. Never throws.
 */
export function othersMayWrite(path: string, judge: (uid: number, gid: number) => boolean = privateGroupJudge()): string | undefined {
  const stat = statOf(statSync, path);
  return stat === undefined ? undefined : writersOf(stat, judge);
}

function statOf(fn: (p: string, o: { throwIfNoEntry: false }) => Stats | undefined, path: string): Stats | undefined {
  try {
    return fn(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
