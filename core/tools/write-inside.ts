import { constants, type Stats } from "node:fs";
import { access, lstat, open, rename, unlink, type FileHandle } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { ToolError } from "../errors.js";
import { keelTempName, removeStaleTempsIn } from "../state/atomic-write.js";
import { storageProblem } from "../state/storage-problem.js";
import { openDirInside } from "./open-inside.js";

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;
/** Bytes per write: the abort signal is checked between chunks. */
const CHUNK = 1 << 20;

/** What `writeFileInside` did: the new file's stat (for the read baseline) and whether it was created. */
export interface WriteOutcome {
  stat: Stats;
  created: boolean;
}

/**
 * Replaces the file at `abs` (resolved by `confinePath`) with `bytes` atomically: the parent
 * folder is opened and checked inside `root` (missing folders are created inside it), a temp file
 * is created next to the target with O_CREAT|O_EXCL through that open folder, written in full,
 * given the target's file mode (without setuid and setgid) and (where the system lets this user) its owner and group, and renamed over the target.
 * A target this process may not write (a read-only file, as `echo > file` would find it) is refused, untouched. A crash or kill at any moment leaves
 * the old or the new content, never part of it (at worst a stray `.<name>.keel-tmp-<pid>-<random>` file, named
 * as keel's own state writes name theirs: the next write of that file removes it, through the same open folder,
 * once its process is gone — see `removeStaleTempsIn`).
 * Not fsynced: atomic against a dying process, not a durability promise against power loss.
 * A failed write (EFBIG under `ulimit -f`, ENOSPC, EDQUOT; EROFS, EACCES, EPERM) removes the temp file and throws
 * ToolError(`execution_failed`) saying the file is unchanged; `shown` names the path in messages.
 */
export async function writeFileInside(root: string, abs: string, bytes: Buffer, signal: AbortSignal, shown: string): Promise<WriteOutcome> {
  const dir = await openDirInside(root, dirname(abs), shown, true).catch((error: unknown) => {
    throw writeFailure(error, shown) ?? error;
  });
  try {
    const name = basename(abs);
    const before = await lstat(dir.child(name)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw error;
    });
    if (before?.isDirectory()) throw new ToolError(`${shown} is a directory; give a file path.`, "execution_failed");
    if (before?.isFile()) await refuseReadOnly(dir.child(name), before, shown);
    await removeStaleTempsIn(dir.at, name);
    const temp = keelTempName(name);
    let handle: FileHandle | undefined;
    try {
      handle = await open(dir.child(temp), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o666);
      for (let off = 0; off < bytes.length;) {
        signal.throwIfAborted();
        const { bytesWritten } = await handle.write(bytes, off, Math.min(CHUNK, bytes.length - off), off);
        off += bytesWritten;
      }
      if (before?.isFile()) {
        await keepOwner(handle, before);
        // Never setuid or setgid: new content is a new program (the kernel drops those bits on a non-root write too),
        // and a replacement given another user's uid with them would run the model's bytes as that user.
        await handle.chmod(before.mode & 0o1777);
      }
      const stat = await handle.stat();
      await handle.close();
      handle = undefined;
      signal.throwIfAborted();
      await rename(dir.child(temp), dir.child(name));
      return { stat, created: before === undefined };
    } catch (error) {
      await handle?.close().catch(() => undefined);
      await unlink(dir.child(temp)).catch(() => undefined);
      throw writeFailure(error, shown) ?? error;
    }
  } finally {
    await dir.close();
  }
}

/**
 * Throws ToolError(`execution_failed`) when this process may not write the existing file at `path` (`access(W_OK)`: its
 * mode or owner says so; root may write any file, as in a shell). Replacing it by rename would succeed in a folder we may
 * write, and so silently drop the read-only mark the user set.
 */
async function refuseReadOnly(path: string, before: Stats, shown: string): Promise<void> {
  try {
    await access(path, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EACCES" && code !== "EPERM") return; // EROFS and the like: the write itself reports them
    const mode = (before.mode & 0o777).toString(8).padStart(4, "0");
    throw new ToolError(
      `Could not write ${shown}: it is read-only for keel (${code}; mode ${mode}, owner uid ${before.uid}). ${shown} was left unchanged; this write cannot succeed as things stand: do not retry it or work around it, ask the user to make it writable (chmod u+w) or write elsewhere.`,
      "execution_failed",
      null,
      { path: shown, reason: "read_only" },
    );
  }
}

/** Gives the temp file the replaced file's owner and group where allowed (root, or a group this user is in); never throws. */
async function keepOwner(handle: FileHandle, before: Stats): Promise<void> {
  const now = await handle.stat();
  if (now.uid === before.uid && now.gid === before.gid) return;
  await handle.chown(before.uid, before.gid).catch(() => handle.chown(-1, before.gid).catch(() => undefined));
}

/** A ToolError for a write the system refused for lack of room or on a read-only or foreign place (the target is untouched). */
function writeFailure(error: unknown, shown: string): ToolError | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  // No room for it (a full disk, a used-up quota, a file size limit): what it means and what to do (storageProblem).
  const room = code === "EFBIG" || code === "ENOSPC" || code === "EDQUOT" ? storageProblem(error) : undefined;
  if (room !== undefined)
    return new ToolError(`Could not write ${shown}: ${room.meaning} (${code}). ${shown} was left unchanged; ${room.todo}.`, "execution_failed", null, {
      path: shown,
      reason: code,
    });
  // A place that cannot be written at all (its folders made through the open folder, whose path means nothing to the model).
  const denied =
    code === "EROFS" ? "the file system there is read-only (EROFS)" : code === "EACCES" || code === "EPERM" ? `keel may not write there (${code})` : undefined;
  if (denied === undefined) return undefined;
  return new ToolError(
    `Could not write ${shown}: ${denied}. ${shown} was left unchanged; this write cannot succeed as things stand: do not retry it, ask the user or write elsewhere.`,
    "execution_failed",
    null,
    { path: shown, reason: code },
  );
}
