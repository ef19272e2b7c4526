import { constants } from "node:fs";
import { lstat, open, readdir, rename, stat, unlink, type FileHandle } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { randomBytes } from "../lazy-crypto.js";

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;

/** What comes after `.<name>` in a temp file keel writes `<name>` through: the writing process's pid and a random part. */
const TEMP_TAIL = /^\.keel-tmp-(\d{1,10})-[0-9a-f]{12}$/;

/** The prefix of `file`'s temp files (in its own folder, so the rename never crosses file systems). */
function tempPrefix(file: string): string {
  return `.${basename(file).slice(0, 200)}`;
}

/**
 * Replaces `file` with `data` atomically: a temp file `.<name>.keel-tmp-<pid>-<random>` next to it (created
 * exclusively, never through a link), written, fsynced and renamed over it. The new file keeps the old one's mode
 * unless `mode` is given. A kill at any moment leaves the old or the new content, and at worst that temp file,
 * which the next write of `file` removes (see `removeStaleTemps`). A failed write removes its temp file and throws.
 */
export async function writeFileAtomic(file: string, data: string | Buffer, mode?: number): Promise<void> {
  await removeStaleTemps(file);
  const before =
    mode ??
    (await stat(file).then(
      (s) => (s.isFile() ? s.mode & 0o7777 : undefined),
      () => undefined,
    ));
  const temp = join(dirname(file), `${tempPrefix(file)}.keel-tmp-${process.pid}-${randomBytes(6).toString("hex")}`);
  let handle: FileHandle | undefined;
  try {
    handle = await open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, before ?? 0o666);
    await handle.writeFile(data);
    if (before !== undefined) await handle.chmod(before);
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(temp, file);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

/**
 * Removes the temp files a killed keel left next to `file` while writing it: only regular files named exactly as
 * `writeFileAtomic` names them whose process is gone (a live pid — this process, another keel mid-write, or an
 * unrelated process that reuses the number — keeps its file). Anything else is never touched. Never throws.
 */
export async function removeStaleTemps(file: string): Promise<void> {
  const prefix = tempPrefix(file);
  const names = await readdir(dirname(file)).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = TEMP_TAIL.exec(name.slice(prefix.length))?.[1];
    if (pid === undefined || processAlive(Number(pid))) continue;
    const path = join(dirname(file), name);
    if (
      await lstat(path).then(
        (s) => s.isFile(),
        () => false,
      )
    )
      await unlink(path).catch(() => undefined);
  }
}

/** Whether a process with this pid exists (EPERM: it does, owned by someone else). */
function processAlive(pid: number): boolean {
  if (pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}
