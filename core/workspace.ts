import { existsSync, realpathSync, statSync } from "node:fs";
import { UsageError } from "./errors.js";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { isManagedWorktree } from "./managed-worktree.js";
import { realOrSelf } from "./real-path.js";
import { SESSION_KEY_FILE, MCP_OAUTH_DIR } from "./keel-home-secrets.js";
import { foreignOwner, othersMayWrite, userFileProblem, yourOwners } from "./foreign-owner.js";
import { gitSafeDirectories, safeByGit } from "./git-safe-directory.js";
import { parentsProblem } from "./parent-folders.js";
import { privateGroupJudge } from "./private-group.js";

/** Where things live for one invocation (architecture section 6). */
export interface Workspace {
  /** Nearest ancestor of `cwd` holding `.git` or `.keel`, else `cwd`; inside a managed worktree, the workspace owning it. Real path. */
  root: string;
  /** The directory keel was started in (real path). */
  cwd: string;
  /** `<root>/.keel`. Created on first write. */
  stateDir: string;
  /** `$KEEL_HOME`, default `~/.keel`. */
  keelHome: string;
  /**
   * Warnings about where the workspace is: each `.git` or `.keel` passed over in finding `root` (see `resolveWorkspace`), and a
   * `root` other users may write. Absent when there are none.
   */
  notes?: string[];
}

/**
 * Resolves the workspace for a working directory. Never creates anything. A missing or non-directory cwd is a UsageError,
 * as is a user-level directory (`$KEEL_HOME`, default `~/.keel`) that exists and is not a folder (or lies under a file),
 * or that (or a file keel reads in it) another user owns or every user may write.
 *
 * A `.git` or `.keel` counts as a marker only when you (or root) own it and the folder holding it, and that
 * folder is not one other users may write (every user, or a group that is not its owner's alone: see
 * `othersMayWrite`): another user can put one in such a folder (`/tmp/.keel`, above your
 * unpacked `/tmp/you/archive`), which would make it the workspace — its config, manifests and instructions read,
 * its `.keel` holding your sessions. Such markers are passed over (each with a note). A root (or its `.keel` or
 * `.git`) another user owns is a UsageError, as git refuses such a repository; a root other users may write (keel
 * started in `/tmp` itself) gets a note. As in git, your git config's `safe.directory` (system, global or `-c`,
 * never a repository's own) lets you work in another user's folder: a folder it lists counts as yours here
 * (the entry `*`, common in containers, lists every folder), except a folder other users may write.
 */
export function resolveWorkspace(cwd: string, env: NodeJS.ProcessEnv = process.env): Workspace {
  const real = realDirectory(resolve(cwd));
  const fromEnv = Boolean(env.KEEL_HOME && env.KEEL_HOME.trim());
  const keelHome = resolve(fromEnv ? env.KEEL_HOME! : join(env.HOME || homedir(), ".keel"));
  const owners = yourOwners(env);
  checkKeelHome(keelHome, fromEnv, owners);
  // who besides its owner may write a folder (every user, or a group not the owner's alone): asked of the markers' folders and the root
  const judge = privateGroupJudge();
  const othersWrite = (dir: string) => (owners === undefined ? undefined : othersMayWrite(dir, judge));
  // git's safe.directory, asked only when another user's folder is in the way
  let safeDirectories: string[] | undefined;
  const allowedByGit = (dir: string) => safeByGit(dir, (safeDirectories ??= gitSafeDirectories(env, possibleRoots(real, userDir))), env);
  // `~/.keel` is your user-level directory, not a workspace's state: counting it as a marker made every
  // folder under ~ without its own `.git` (an unpacked archive) a workspace rooted at ~, whose files
  // (`~/.ssh`, keel's OAuth tokens) its CLAUDE.md could import and the model could read.
  const userDir = (marker: string) => {
    const at = realOrSelf(marker);
    return [keelHome, join(env.HOME || homedir(), ".keel")].some((d) => d === marker || realOrSelf(d) === at);
  };
  let root = real;
  const notes: string[] = [];
  const yours = (dir: string, marker: string) => {
    const why = markerProblem(dir, marker, owners, allowedByGit, othersWrite);
    if (why !== undefined) notes.push(`${marker} was passed over: ${why}, so keel did not take ${dir} for the workspace`);
    return why === undefined;
  };
  for (let dir = real; ; dir = dirname(dir)) {
    const git = join(dir, ".git");
    const marker = join(dir, ".keel");
    if ((existsSync(git) && yours(dir, git)) || (existsSync(marker) && !userDir(marker) && yours(dir, marker))) {
      root = dir;
      break;
    }
    if (dirname(dir) === dir) break;
  }
  root = owningWorkspace(real) ?? root;
  const shared = checkRootOwner(root, owners, allowedByGit, othersWrite);
  if (shared !== undefined)
    notes.push(
      `The workspace ${root} belongs to another user (uid ${shared}); keel works there because your git config's safe.directory lists it, and reads its config, manifests and instructions as a workspace's (they widen nothing until you run \`keel trust\`).`,
    );
  for (let i = 0; i < notes.length; i++)
    notes[i] += ` (it works in ${root}). If that folder is your project, make it yours and writable by you only, or work in a copy you own.`;
  const writers = othersWrite(root);
  if (writers !== undefined)
    notes.push(
      `The workspace ${root} ${writers}: other users on this machine can add config, manifests and instructions (AGENTS.md) that keel reads there. Work in a folder of your own.`,
    );
  return { root, cwd: real, stateDir: join(root, ".keel"), keelHome, ...(notes.length ? { notes } : {}) };
}

/**
 * Every folder that may turn out to be the workspace root of `cwd`: `cwd` itself and each ancestor holding a `.git`
 * or a `.keel` (not your user-level one, `isUserDir`). A program keel starts before the root is known (git, for its
 * safe.directory) is never one of theirs. Never throws.
 */
function possibleRoots(cwd: string, isUserDir: (marker: string) => boolean): string[] {
  const roots = [cwd];
  for (let dir = dirname(cwd); ; dir = dirname(dir)) {
    const keel = join(dir, ".keel");
    if (existsSync(join(dir, ".git")) || (existsSync(keel) && !isUserDir(keel))) roots.push(dir);
    if (dirname(dir) === dir) return roots;
  }
}

/** Why `marker` (`.git` or `.keel` in `dir`) does not mark your workspace, or undefined when it does. Never throws. */
function markerProblem(
  dir: string,
  marker: string,
  owners: ReadonlySet<number> | undefined,
  allowedByGit: (dir: string) => boolean,
  othersWrite: (dir: string) => string | undefined,
): string | undefined {
  const writers = othersWrite(dir);
  const owner = foreignOwner(marker, owners);
  const dirOwner = foreignOwner(dir, owners);
  // your safe.directory speaks for a user you trust, never for users besides that one (every user, or a shared group)
  const allowed = (owner !== undefined || dirOwner !== undefined) && writers === undefined && allowedByGit(dir);
  if (owner !== undefined && !allowed) return `it belongs to another user (uid ${owner})`;
  if (dirOwner !== undefined && !allowed) return `its folder belongs to another user (uid ${dirOwner})`;
  if (writers !== undefined) return `its folder ${writers}: another user could have put it there`;
  return undefined;
}

/**
 * Throws a UsageError when another user owns the workspace root, its `.keel` or its `.git`, unless your git
 * config's safe.directory lists the root and not every user may write it: then that user's uid is returned
 * (undefined when all is yours).
 */
function checkRootOwner(
  root: string,
  owners: ReadonlySet<number> | undefined,
  allowedByGit: (dir: string) => boolean,
  othersWrite: (dir: string) => string | undefined,
): number | undefined {
  for (const path of [root, join(root, ".keel"), join(root, ".git")]) {
    const owner = foreignOwner(path, owners);
    if (owner === undefined) continue;
    if (othersWrite(root) === undefined && allowedByGit(root)) return owner;
    throw new UsageError(
      `The workspace ${root} belongs to another user: ${path} is owned by uid ${owner}. keel keeps your sessions and state there and reads its config and manifests, so it does not work in another user's folder (git refuses such a repository too). Copy it to a folder you own (\`git clone\`, \`cp -r\`), run keel as its owner, or, if you trust that user, list the folder in git's safe.directory (\`git config --global --add safe.directory ${root}\`), which keel honours as git does.`,
    );
  }
  return undefined;
}

/**
 * The workspace a directory inside one of its managed worktrees (`<root>/.keel/worktrees/<name>`)
 * belongs to: `<root>`, but only when that directory is a linked git worktree of the repository
 * holding `<root>` (see `isManagedWorktree`); a look-alike folder with a `.git` (committed, a
 * submodule, another repository's worktree) does not move the workspace. Undefined otherwise.
 */
export function owningWorkspace(dir: string): string | undefined {
  const segs = dir.split(sep);
  for (let i = 0; i + 2 < segs.length; i++) {
    if (segs[i] !== ".keel" || segs[i + 1] !== "worktrees") continue;
    const parent = segs.slice(0, i).join(sep) || sep;
    if (isManagedWorktree(parent, segs[i + 2]!)) return parent;
  }
  return undefined;
}

/**
 * Why `dir` (read from keel's state, e.g. a session's pinned directory) may not be a working
 * directory of this workspace, or undefined when it may: it must exist and resolve inside the
 * workspace root, and never into `.keel/` except a managed worktree that git links to this
 * repository. Never throws.
 */
export function workingDirProblem(ws: Pick<Workspace, "root" | "stateDir">, dir: unknown): string | undefined {
  if (typeof dir !== "string" || !isAbsolute(dir)) return `${JSON.stringify(dir)} is not an absolute path`;
  let real: string;
  try {
    real = realpathSync.native(dir);
  } catch {
    return `${dir} does not exist`;
  }
  const rel = relative(ws.root, real);
  if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return `${dir} is outside the workspace ${ws.root}`;
  const state = relative(ws.stateDir, real);
  if (state === ".." || state.startsWith(`..${sep}`) || isAbsolute(state)) return undefined;
  const [first, name] = state.split(sep);
  if (first === "worktrees" && name !== undefined && isManagedWorktree(ws.root, name)) return undefined;
  return `${dir} is inside keel's state folder ${ws.stateDir}${first === "worktrees" && name ? `, and .keel/worktrees/${name} is not a git worktree of this repository` : ""}`;
}

/** Directories from `cwd` up to `root` inclusive, nearest first. Never goes above `root`. */
export function ancestorsWithin(cwd: string, root: string): string[] {
  const out: string[] = [];
  for (let dir = cwd; ; dir = dirname(dir)) {
    out.push(dir);
    if (dir === root || dirname(dir) === dir) break;
  }
  if (out[out.length - 1] !== root) return [cwd];
  return out;
}

/**
 * Throws a UsageError when the user-level directory cannot be one: it is a file (or anything but a folder, followed
 * through links), or a part of its path is a file. Missing is fine (created on first write); other errors are left
 * to the read or write that meets them.
 */
function checkKeelHome(keelHome: string, fromEnv: boolean, owners: ReadonlySet<number> | undefined): void {
  const named = fromEnv ? `KEEL_HOME (${keelHome})` : `keel's user-level folder ${keelHome} (the default, as KEEL_HOME is not set)`;
  const fix = fromEnv
    ? "Point KEEL_HOME at a folder (keel creates it if missing), or unset it to use ~/.keel."
    : "Move that file away (keel creates the folder), or set KEEL_HOME to a folder.";
  let what: string | undefined;
  try {
    if (!statSync(keelHome).isDirectory()) what = "is a file, not a folder";
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOTDIR") what = "lies under a file, not a folder";
  }
  if (what) throw new UsageError(`${named} ${what}: keel keeps your config, trust records and state there. ${fix}`);
  for (const path of [keelHome, ...USER_LEVEL_ENTRIES.map((e) => join(keelHome, e))]) {
    const problem = userFileProblem(path, owners);
    if (problem === undefined) continue;
    throw new UsageError(
      `${named}: ${problem}. keel takes what is there as yours (your config, MCP servers, plugins, trust records), so another user could make keel run their commands with your permissions. Make it yours and writable by you only (\`chown\` it, \`chmod go-w\`), or point KEEL_HOME at a folder of your own.`,
    );
  }
  const above = parentsProblem(keelHome, owners);
  if (above !== undefined)
    throw new UsageError(
      `${named}: ${above}, so they could put their own folder there in its place (your config, MCP servers, plugins, trust records). Every folder above it must be yours or root's and writable by no one else, as ssh requires of the folders above a key: \`chown\` that folder to you or root and \`chmod go-w\` it (a shared folder like /tmp: \`chmod +t\`, and the folder below it yours), or point KEEL_HOME at a folder of your own.`,
    );
}

/** What keel reads in the user-level directory as yours (checked by `checkKeelHome`). */
const USER_LEVEL_ENTRIES = [
  "config.json",
  "mcp.json",
  "trust.json",
  "plugins",
  "extensions",
  "commands",
  "skills",
  "agents",
  "state",
  SESSION_KEY_FILE,
  MCP_OAUTH_DIR,
];

function realDirectory(dir: string): string {
  let real: string;
  try {
    real = realpathSync.native(dir);
  } catch {
    throw new UsageError(`The working directory ${dir} does not exist. Pass an existing directory to --cwd.`);
  }
  if (!statSync(real).isDirectory()) throw new UsageError(`The working directory ${dir} is not a directory. Pass a directory to --cwd.`);
  return real;
}
