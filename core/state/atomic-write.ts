import { constants } from "node:fs";
import { lstat, open, readdir, rename, stat, unlink, type FileHandle } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { randomBytes } from "../lazy-crypto.js";

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;

/** What comes after `.<name>` in a temp file keel writes `<name>` through: the writing process's pid and a random part. */
const TEMP_TAIL = /^\.keel-tmp-(\d{1,10})-[0-9a-f]{12}$/;

/** Any temp file keel names this way, whatever file it was writing: the name it wrote and the writer's pid. */
const ANY_TEMP = /^\.(.+)\.keel-tmp-(\d{1,10})-[0-9a-f]{12}$/;

/** The prefix of the temp files of the file named `name` (in its own folder, so the rename never crosses file systems). */
function tempPrefix(name: string): string {
  return `.${name.slice(0, 200)}`;
}

/** A fresh temp name for writing the file named `name` in its folder: `.<name>.keel-tmp-<pid>-<random>`. */
export function keelTempName(name: string): string {
  return `${tempPrefix(name)}.keel-tmp-${process.pid}-${randomBytes(6).toString("hex")}`;
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
  const temp = join(dirname(file), keelTempName(basename(file)));
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
 * Removes the temp files a killed keel left in folder `dir` while writing the file named `name` there: only
 * regular files named exactly as `keelTempName` names them whose process is gone (a live pid — this process,
 * another keel mid-write, or an unrelated process that reuses the number — keeps its file). Links (never followed),
 * folders and every other name are never touched. `dir` may name a folder through its open descriptor
 * (`/proc/self/fd/N`), so a folder swapped for a link cannot redirect the removal. Never throws.
 */
export async function removeStaleTempsIn(dir: string, name: string): Promise<void> {
  const prefix = tempPrefix(name);
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const entry of names) {
    if (!entry.startsWith(prefix)) continue;
    const pid = TEMP_TAIL.exec(entry.slice(prefix.length))?.[1];
    if (pid === undefined || processAlive(Number(pid))) continue;
    const path = join(dir, entry);
    if (await isRegularFile(path)) await unlink(path).catch(() => undefined);
  }
}

/** Removes the temp files a killed keel left next to `file` while writing it (see `removeStaleTempsIn`). Never throws. */
export function removeStaleTemps(file: string): Promise<void> {
  return removeStaleTempsIn(dirname(file), basename(file));
}

/**
 * The temp files in folder `dir` (not its subfolders) that a killed keel left while writing any file there: regular
 * files named `.<name>.keel-tmp-<pid>-<random>` whose process is gone. Reports only; never throws.
 */
export async function findStaleTemps(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const stale: string[] = [];
  for (const entry of names) {
    const pid = ANY_TEMP.exec(entry)?.[2];
    if (pid === undefined || processAlive(Number(pid))) continue;
    if (await isRegularFile(join(dir, entry))) stale.push(entry);
  }
  return stale.sort();
}

/** Whether `path` is a regular file itself (a link is not, whatever it leads to). */
function isRegularFile(path: string): Promise<boolean> {
  return lstat(path).then(
    (s) => s.isFile(),
    () => false,
  );
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
