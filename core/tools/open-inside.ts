import { closeSync, constants, openSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { mkdir, open, type FileHandle } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { ToolError } from "../errors.js";
import { inside } from "./confine-path.js";

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } = constants;

/**
 * A directory opened inside the boundary. On Linux, `child(name)` names an entry of this very
 * directory through `/proc/self/fd/N` (like `openat`), so a directory component swapped for a
 * symlink after the check cannot redirect what is created, opened or renamed there.
 */
export class PinnedDir {
  constructor(
    readonly handle: FileHandle,
    /** Where the directory really is (checked inside the boundary). */
    readonly path: string,
    private readonly viaProc: boolean,
  ) {}

  /** A path naming `name` inside this directory (through the open descriptor where the OS allows). */
  child(name: string): string {
    return this.viaProc ? `/proc/self/fd/${this.handle.fd}/${name}` : join(this.path, name);
  }

  /** A path naming this directory itself (through the open descriptor where the OS allows). */
  get at(): string {
    return this.viaProc ? `/proc/self/fd/${this.handle.fd}` : this.path;
  }

  /** Closes the descriptor. */
  close(): Promise<void> {
    return this.handle.close();
  }
}

/**
 * Opens the file at `abs` (already resolved by `confinePath`) for reading so that the object
 * checked is the object read: `O_NOFOLLOW` (the last component may not have become a link) and
 * `O_NONBLOCK` (a FIFO never blocks the open), then the descriptor's real path must lie inside
 * `root`. Throws ToolError(`permission_denied`) when it does not (a component was swapped for a
 * link meanwhile); other open errors (ENOENT, ...) are thrown as they are. `shown` names the path in messages.
 */
export async function openFileInside(root: string, abs: string, shown: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(abs, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    throw linkRace(error, shown) ?? error;
  }
  try {
    // The common case without an extra await: /proc names a live file inside the boundary.
    const real = procPath(handle.fd);
    if (real === undefined || real.endsWith(" (deleted)") || !inside(root, real)) await checkOpened(root, handle, abs, shown);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * `openFileInside`'s common case without leaving the thread (for tight loops over many small files, where a
 * promise per syscall costs more than the syscall): the same `O_NOFOLLOW | O_NONBLOCK` open, and the descriptor
 * kept only when `/proc/self/fd/N` names a live file inside `root` — the very condition under which
 * `openFileInside` accepts without `checkOpened`. Returns the descriptor (the caller closes it), or `undefined`
 * when that cannot be told here (no /proc, a deleted file, a path that reads outside `root`): the caller then
 * opens the file again with `openFileInside`, which checks it fully. Throws as `openFileInside` does for a
 * link met at the last component (ToolError `permission_denied`) and for other open errors.
 */
export function openFileInsideSync(root: string, abs: string, shown: string): number | undefined {
  let fd: number;
  try {
    fd = openSync(abs, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    throw linkRace(error, shown) ?? error;
  }
  const real = procPath(fd);
  if (real !== undefined && !real.endsWith(" (deleted)") && inside(root, real)) return fd;
  closeSync(fd);
  return undefined;
}

/**
 * Opens the directory `dir` (resolved, inside `root`) and checks the opened descriptor is inside
 * `root`. With `create`, missing directories are made one at a time, each inside its already
 * checked parent, so nothing is ever created outside. Errors as in `openFileInside`.
 */
export async function openDirInside(root: string, dir: string, shown: string, create = false): Promise<PinnedDir> {
  let handle: FileHandle;
  try {
    handle = await open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch (error) {
    const race = linkRace(error, shown);
    if (race) throw race;
    if (!create || (error as NodeJS.ErrnoException).code !== "ENOENT" || dirname(dir) === dir) throw error;
    const parent = await openDirInside(root, dirname(dir), shown, true);
    try {
      const name = parent.child(basename(dir));
      await mkdir(name).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== "EEXIST") throw e;
      });
      handle = await open(name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW).catch((e: unknown) => {
        throw linkRace(e, shown) ?? e;
      });
    } finally {
      await parent.close();
    }
  }
  try {
    const { real, viaProc } = await checkOpened(root, handle, dir, shown);
    return new PinnedDir(handle, real, viaProc);
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Reads a file whose size `fstat` already gave, without `readFile`'s second fstat. Files that report
 * size 0 (procfs-like) fall back to reading until the end.
 */
export async function readOpened(handle: FileHandle, size: number): Promise<Buffer> {
  if (size === 0) return handle.readFile();
  const buf = Buffer.allocUnsafe(size);
  let off = 0;
  while (off < size) {
    const { bytesRead } = await handle.read(buf, off, size - off, off);
    if (bytesRead === 0) break;
    off += bytesRead;
  }
  return off < size ? buf.subarray(0, off) : buf;
}

/** The ToolError for an open that met a symlink where `confinePath` had resolved none (ELOOP under O_NOFOLLOW). */
function linkRace(error: unknown, shown: string): ToolError | undefined {
  if ((error as NodeJS.ErrnoException).code !== "ELOOP") return undefined;
  return new ToolError(
    `${shown} became a symlink while keel was opening it; keel does not follow links it has not checked. Retry the call once the path is stable.`,
    "permission_denied",
    null,
    { path: shown, reason: "symlink_race" },
  );
}

/**
 * Where the open descriptor really is, checked inside `root`: `/proc/self/fd/N` on Linux; elsewhere
 * the real path of `path`, accepted only when it is the same file (device and inode) as the descriptor.
 */
async function checkOpened(root: string, handle: FileHandle, path: string, shown: string): Promise<{ real: string; viaProc: boolean }> {
  let real = procPath(handle.fd);
  const viaProc = real !== undefined;
  if (real !== undefined && real.endsWith(" (deleted)") && (await handle.stat()).nlink === 0) throw moved(shown);
  if (real === undefined) {
    try {
      real = realpathSync.native(path);
      const [opened, named] = [await handle.stat(), statSync(real)];
      if (opened.dev !== named.dev || opened.ino !== named.ino) throw moved(shown);
    } catch (error) {
      throw error instanceof ToolError ? error : moved(shown);
    }
  }
  if (!inside(root, real) && !inside(realpathSync.native(root), real))
    throw new ToolError(
      `${shown} led outside the workspace (to ${real}) when opened: a folder on its path was replaced by a symlink after it was checked. Nothing was read or written; retry once the path is stable.`,
      "permission_denied",
      null,
      { path: shown, reason: "symlink_escape" },
    );
  return { real, viaProc };
}

/** Where descriptor `fd` really is, from `/proc/self/fd` (Linux), or undefined where that is not available. */
function procPath(fd: number): string | undefined {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}

function moved(shown: string): ToolError {
  return new ToolError(`${shown} was moved or deleted while keel was opening it. Nothing was read or written; retry the call.`, "permission_denied", null, {
    path: shown,
    reason: "moved",
  });
}
