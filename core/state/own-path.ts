import { closeSync, constants, lstatSync, openSync, readlinkSync, unlinkSync, writeSync } from "node:fs";
import { homedir } from "node:os";
import { resolve, sep } from "node:path";
import { StateError } from "../errors.js";

const { O_CREAT, O_EXCL, O_NOFOLLOW, O_WRONLY, O_TRUNC, O_APPEND, O_RDWR } = constants;

/**
 * Modes of the folders and files keel makes for its own state (`.keel/`, `$KEEL_HOME`): yours alone. Sessions,
 * events and artifacts hold your conversations and what tools read; other users of the machine may not read them,
 * even where git made a committed `.keel/` readable by everyone. Existing folders and files keep their modes.
 */
export const PRIVATE_DIR_MODE = 0o700;
/** See PRIVATE_DIR_MODE. */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Why keel may not write its own file `file`, or undefined when it may: from the last `.keel`
 * folder on its path down to `file`'s folder, no component may be a symlink (a repository can
 * commit `.keel → /elsewhere` or `.keel/state → /elsewhere`; writing through it would leave the
 * workspace). With `folder`, `file` is a folder and is checked too. The user-level `~/.keel` (or
 * `$KEEL_HOME`) may itself be a link: the user made it. Paths without a `.keel` folder are not
 * checked. Never throws.
 */
export function ownPathProblem(file: string, folder = false): string | undefined {
  const segs = resolve(file).split(sep);
  const at = segs.lastIndexOf(".keel");
  if (at < 0) return undefined;
  for (let i = at; i < segs.length - (folder ? 0 : 1); i++) {
    const dir = segs.slice(0, i + 1).join(sep) || sep;
    let isLink: boolean;
    try {
      isLink = lstatSync(dir).isSymbolicLink();
    } catch {
      return undefined; // nothing further exists yet: mkdir creates real folders from here
    }
    if (isLink && !(i === at && isUserLevelDir(dir))) return `${dir} is a symlink (to ${linkTarget(dir)})`;
  }
  return undefined;
}

/**
 * Throws StateError when `ownPathProblem(file, folder)` finds a symlinked folder, saying what to do next.
 * Call before creating folders or writing a file of keel's own state.
 */
export function assertOwnPath(file: string, folder = false): void {
  const problem = ownPathProblem(file, folder);
  if (problem !== undefined)
    throw new StateError(
      `${problem}. keel keeps its own files (events, state, sessions, artifacts) only in real folders under .keel/ and never writes through a link planted in the repository. Remove the link (it is not keel's) and retry.`,
      file,
    );
}

/** True when `file` lies in a workspace's `.keel` folder (not the user-level one): keel owns every name there. */
export function workspaceOwned(file: string): boolean {
  const segs = resolve(file).split(sep);
  const at = segs.lastIndexOf(".keel");
  return at >= 0 && !isUserLevelDir(segs.slice(0, at + 1).join(sep));
}

/**
 * Flags to open keel's own file `file` for reading: never blocking (a FIFO is never waited on) and,
 * under a workspace's `.keel`, never following a link at the file (the open fails with ELOOP: read
 * it as no file) after refusing a linked folder on the way (StateError), as for writes: a
 * repository can commit `.keel`, so a link there to another project's state, a session log, a
 * device or a terminal must not be read as keel's own.
 */
export function ownReadFlags(file: string): number {
  const flags = constants.O_RDONLY | constants.O_NONBLOCK;
  if (!workspaceOwned(file)) return flags;
  assertOwnPath(file);
  return flags | O_NOFOLLOW;
}

/**
 * If `file` itself is a symlink, removes the link (not its target) so a write creates keel's own
 * file in its place. Returns true when a link was removed. Never throws for a missing file.
 */
export function replaceLink(file: string): boolean {
  try {
    if (!lstatSync(file).isSymbolicLink()) return false;
  } catch {
    return false;
  }
  unlinkSync(file);
  return true;
}

/**
 * Opens keel's own file for writing (`append` for logs, else truncating) without following a
 * symlink: its folders are checked (`assertOwnPath`), and a link planted at `file` is replaced by a
 * new file. Returns the descriptor; throws StateError for a linked folder, else the system error.
 */
export function openOwnFileSync(file: string, mode: "append" | "truncate"): number {
  assertOwnPath(file);
  const flags = (mode === "append" ? O_RDWR | O_APPEND : O_WRONLY | O_TRUNC) | O_CREAT | O_NOFOLLOW;
  try {
    return openSync(file, flags, PRIVATE_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ELOOP" || !replaceLink(file)) throw error;
    return openSync(file, flags, PRIVATE_FILE_MODE);
  }
}

/** Writes `data` to keel's own file `file` (see `openOwnFileSync`), replacing its content. */
export function writeOwnFileSync(file: string, data: string | Buffer): void {
  writeAll(openOwnFileSync(file, "truncate"), data);
}

/**
 * Creates keel's own file `file` with `data`, only if nothing (not even a link) is there: returns
 * false, writing nothing, when something is. Its folders are checked as for `openOwnFileSync`;
 * throws StateError for a linked folder, else the system error (a write that fails removes the file it made).
 * `mode`: keel's state is private (PRIVATE_FILE_MODE, the default); a file of the project's (`keel init`'s
 * starter files) passes 0o666, so the umask decides as for any file the user makes.
 */
export function writeNewOwnFileSync(file: string, data: string | Buffer, mode = PRIVATE_FILE_MODE): boolean {
  assertOwnPath(file);
  let fd: number;
  try {
    fd = openSync(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    writeAll(fd, data);
  } catch (error) {
    // A full disk: no part of a file is left behind (it was made here, just now, O_EXCL).
    try {
      unlinkSync(file);
    } catch {
      // already gone
    }
    throw error;
  }
  return true;
}

function writeAll(fd: number, data: string | Buffer): void {
  try {
    const buf = typeof data === "string" ? Buffer.from(data) : data;
    for (let off = 0; off < buf.length;) off += writeSync(fd, buf, off);
  } finally {
    closeSync(fd);
  }
}

function isUserLevelDir(dir: string): boolean {
  const home = process.env.KEEL_HOME?.trim();
  return dir === resolve(homedir(), ".keel") || (home !== undefined && home !== "" && dir === resolve(home));
}

function linkTarget(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return "?";
  }
}
