import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, readdirSync, readFileSync, rmSync, unlinkSync } from "node:fs";
import { type FileHandle, mkdir, open } from "node:fs/promises";
import { dirname } from "node:path";
import { StateError, errorMessage } from "../errors.js";
import { writeFileAtomic } from "./atomic-write.js";
import { clearFutureLock } from "./future-lock.js";
import { assertOwnPath, ownReadFlags, PRIVATE_DIR_MODE, replaceLink, workspaceOwned } from "./own-path.js";
import { storageMessage, storageProblem } from "./storage-problem.js";

/**
 * Reads a JSON state file. Missing file → `fallback`. A file that cannot be parsed
 * throws `StateError` naming the file (the caller must not overwrite it). Read as `readStateText`.
 */
export async function readJsonState<T>(file: string, fallback: T): Promise<T> {
  const text = await readStateText(file);
  return text === undefined ? fallback : parseState(text, file, fallback);
}

/**
 * readJsonState in one synchronous read: for a large file read on the way to the next step anyway
 * (a session checkpoint), where the promise API's chunked reads cost more than the read itself.
 */
export function readJsonStateSync<T>(file: string, fallback: T): T {
  const text = readStateTextSync(file);
  return text === undefined ? fallback : parseState(text, file, fallback);
}

/**
 * The most `readStateText` reads: task lists, plans, teams, trust, worktree and hook records
 * stay far below it; a larger file (a repository can commit one cheaply: it compresses well) is refused with a
 * StateError instead of being parsed into gigabytes of memory by every command that reads it.
 */
export const MAX_STATE_TEXT_BYTES = 64 * 1024 * 1024;

/**
 * The text of a state file, or undefined when there is none. Only a regular file is read, opened
 * without blocking (a FIFO is never waited on, a device never read). Under a workspace's `.keel`,
 * which a repository can commit, it is read as keel writes it: a link at the file (to another
 * project's state, `/dev/zero`, a terminal) reads as no file — the next write replaces it — and a
 * linked folder on the way throws StateError. A file over MAX_STATE_TEXT_BYTES throws StateError (left untouched).
 * Other failures throw StateError naming the file.
 */
export async function readStateText(file: string): Promise<string | undefined> {
  return readRegularState(file, async (handle, size) => {
    if (size > MAX_STATE_TEXT_BYTES) throw new Error(tooLarge(size));
    return handle.readFile("utf8");
  });
}

/**
 * The last `maxBytes` of a state file that only grows by whole lines (a run history), from its first whole line
 * on; all of it when smaller. Read as `readStateText` (regular files only, links under `.keel` read as no file).
 */
export async function readStateTail(file: string, maxBytes: number): Promise<string | undefined> {
  return readRegularState(file, async (handle, size) => {
    const start = Math.max(0, size - maxBytes);
    const buf = Buffer.alloc(size - start);
    let at = 0;
    while (at < buf.length) {
      const { bytesRead } = await handle.read(buf, at, buf.length - at, start + at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    const text = buf.subarray(0, at).toString("utf8");
    return start === 0 ? text : text.slice(text.indexOf("\n") + 1);
  });
}

/**
 * Opens a state file as `readStateText` describes (regular files only, without blocking; a link under `.keel`
 * reads as no file) and returns what `read` makes of it and its size; failures become StateError naming the file.
 */
async function readRegularState(file: string, read: (handle: FileHandle, size: number) => Promise<string>): Promise<string | undefined> {
  const flags = ownReadFlags(file);
  try {
    const handle = await open(file, flags);
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw new Error("not a regular file");
      return await read(handle, stat.size);
    } finally {
      await handle.close();
    }
  } catch (error) {
    return unreadable(error, file, flags);
  }
}

/** `readStateText` in one synchronous read (the same limit: a larger file throws StateError). */
export function readStateTextSync(file: string): string | undefined {
  const flags = ownReadFlags(file);
  try {
    const fd = openSync(file, flags);
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) throw new Error("not a regular file");
      if (st.size > MAX_STATE_TEXT_BYTES) throw new Error(tooLarge(st.size));
      return readFileSync(fd, "utf8");
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    return unreadable(error, file, flags);
  }
}

function tooLarge(size: number): string {
  return `it holds ${Math.ceil(size / 1024 / 1024)} MiB, more than keel reads of a state file (${MAX_STATE_TEXT_BYTES / 1024 / 1024} MiB). keel left it untouched: move it away (keel starts a new one), then retry`;
}

/** A missing file, or a link at keel's own file (opened with O_NOFOLLOW), is no file; anything else throws StateError. */
function unreadable(error: unknown, file: string, flags: number): undefined {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT" || (code === "ELOOP" && (flags & constants.O_NOFOLLOW) !== 0)) return undefined;
  throw new StateError(`Cannot read state file ${file}: ${errorMessage(error)}`, file, { cause: error });
}

function parseState<T>(text: string, file: string, fallback: T): T {
  if (text.trim() === "") return fallback;
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new StateError(`State file ${file} is not valid JSON (${errorMessage(error)}). keel left it untouched: fix or move it, then retry.`, file, {
      cause: error,
    });
  }
}

/**
 * Writes JSON atomically: temp file, fsync, rename. Creates parent directories. Under a workspace's
 * `.keel`, never through a symlink (see `prepareStateFile`).
 */
export async function writeJsonState(file: string, value: unknown): Promise<void> {
  await writeTextAtomic(file, JSON.stringify(value, null, 2) + "\n");
}

/**
 * Writes text atomically (temp file `.<name>.keel-tmp-<pid>-<random>`, fsync, rename; one a killed keel left is
 * removed by the next write: see `writeFileAtomic`). Creates parent directories. Links as in `writeJsonState`.
 */
export async function writeTextAtomic(file: string, text: string | Buffer): Promise<void> {
  try {
    await prepareStateFile(file);
    await writeFileAtomic(file, text);
  } catch (error) {
    throw storageFailure(error, file, "write");
  }
}

/**
 * A full, read-only or unwritable disk (see `storageProblem`) as a StateError naming `file`, saying what it means and
 * what to do, and that the file keeps its previous content (keel writes state atomically); any other error as it is.
 */
function storageFailure(error: unknown, file: string, action: "write" | "lock"): unknown {
  if (storageProblem(error) === undefined) return error;
  const kept = action === "write" && existsSync(file) ? " The file keeps its previous content." : "";
  return new StateError(`Could not ${action} ${file}: ${storageMessage(error)}${kept}`, file, { cause: error });
}

/**
 * Makes `file`'s folders (after refusing symlinked ones from `.keel` down: StateError) and, in a
 * workspace's `.keel`, removes a symlink planted at `file` itself (a write through it could reach
 * the link's target), so keel's own file takes its place.
 */
async function prepareStateFile(file: string): Promise<void> {
  assertOwnPath(file);
  await mkdir(dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
  if (workspaceOwned(file)) replaceLink(file);
}

/** How long a lock wait lasts before `withFileLock` says what it waits for (once). */
const LOCK_WAIT_NOTICE_MS = 1_000;

/** proper-lockfile's options: a lock not refreshed for 10 s (its holder was killed) is taken over. */
const LOCK_OPTIONS = { realpath: false, stale: 10_000, update: 2_000 } as const;

/** Where `withFileLock` says that it waits; keel's stderr unless the caller passes its own. */
export type LockWaitNotice = (line: string) => void;

const stderrNotice: LockWaitNotice = (line) => void process.stderr.write(`${line}\n`);

/** Given to `withFileLock`'s `fn`: throws StateError once another process has taken the lock over (call it right before writing). */
export type LockHeld = () => void;

/**
 * Runs `fn` while holding an inter-process lock on `file` (the file need not exist).
 * Retries for up to ~20 s (a lock left by a killed keel is taken over after 10 s; one dated in the future
 * once its time has not changed for 10 s, see `clearFutureLock`), then fails with a message naming the
 * file. A wait longer than about a second says so once through `onWait` (default: stderr, never stdout);
 * an uncontended lock is one attempt, with no timer. Folders and links are checked as in `writeJsonState`
 * first, so whatever `fn` writes to `file` stays keel's own file. A lock another process takes over while
 * `fn` runs (this one could not re-date it for 10 s: the machine slept, the clock jumped ahead) is said
 * once through `onWait`, and `fn`'s `held` throws from then on; keel is not ended by it.
 */
export async function withFileLock<T>(file: string, fn: (held: LockHeld) => Promise<T>, onWait: LockWaitNotice = stderrNotice): Promise<T> {
  await prepareStateFile(file).catch((error: unknown) => {
    throw storageFailure(error, file, "lock");
  });
  if (workspaceOwned(file)) removePlantedLock(`${file}.lock`);
  // Loaded on the first lock (with graceful-fs, retry and signal-exit): most commands lock nothing.
  const { default: lockfile } = await import("proper-lockfile");
  let release: () => Promise<void>;
  // proper-lockfile's default throws from a timer, which ended keel with a stack trace.
  let lost = false;
  const options = {
    ...LOCK_OPTIONS,
    onCompromised: () => {
      lost = true;
      onWait(`keel: another process took over ${file}.lock while this keel held it (the machine slept or the clock moved ahead by more than 10 s).`);
    },
  };
  const held: LockHeld = () => {
    if (lost)
      throw new StateError(
        `${file} was not written: another process took over its lock while keel held it (the machine slept or the clock moved ahead by more than 10 s). Run the command again.`,
        file,
      );
  };
  try {
    release = await lockfile.lock(file, options).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ELOCKED") throw error;
      return waitForLock(file, lockfile.lock, options, onWait);
    });
  } catch (error) {
    if (storageProblem(error) !== undefined) throw storageFailure(error, file, "lock");
    throw new StateError(`Could not lock ${file}: ${errorMessage(error)}. Another keel process may hold it; retry.`, file, {
      cause: error,
    });
  }
  try {
    return await fn(held);
  } finally {
    await release().catch(() => undefined);
  }
}

/** Retries a held lock, saying once (after LOCK_WAIT_NOTICE_MS) what keel waits for; a lock dated in the future is watched first (`clearFutureLock`). */
async function waitForLock(
  file: string,
  lock: typeof import("proper-lockfile").lock,
  options: typeof LOCK_OPTIONS & { onCompromised: () => void },
  onWait: LockWaitNotice,
): Promise<() => Promise<void>> {
  const notice = setTimeout(
    () =>
      onWait(`keel: waiting for ${file}.lock (held by another keel process, or left by one that was killed; taken over after ${LOCK_OPTIONS.stale / 1000} s)…`),
    LOCK_WAIT_NOTICE_MS,
  );
  try {
    await clearFutureLock(`${file}.lock`, LOCK_OPTIONS.stale);
    return await lock(file, { ...options, retries: { retries: 200, factor: 1.2, minTimeout: 5, maxTimeout: 100, randomize: true } });
  } finally {
    clearTimeout(notice);
  }
}

/**
 * In a workspace's `.keel`, removes whatever is at the lock path that is not an empty folder: proper-lockfile
 * only ever makes an empty folder there, and a committed file, link or folder with files in it (git commits
 * no empty folder, so a planted lock folder always has some) would fail every lock (after ~20 s of retries)
 * as "held by another process". An empty folder is left to the lock's own stale check. The folder's
 * contents are removed without following links in it. Never throws.
 */
function removePlantedLock(lock: string): void {
  try {
    if (!lstatSync(lock).isDirectory()) unlinkSync(lock);
    else if (readdirSync(lock).length) rmSync(lock, { recursive: true, force: true });
  } catch {
    // missing (the usual case), or not removable: the lock then says what failed
  }
}

/**
 * Read-modify-write a JSON state file under its lock, atomically. `update` returns the
 * new value (or `undefined` to leave the file as is) and a result for the caller. A lock taken over
 * by another process meanwhile (see `withFileLock`) throws StateError instead of writing over what
 * that process may have written. `onNotice`: as `withFileLock`'s `onWait`.
 */
export async function updateJsonState<T, R>(
  file: string,
  fallback: T,
  update: (current: T) => Promise<{ value?: T; result: R }> | { value?: T; result: R },
  onNotice?: LockWaitNotice,
): Promise<R> {
  return withFileLock(
    file,
    async (held) => {
      const current = await readJsonState(file, fallback);
      const { value, result } = await update(current);
      if (value !== undefined) {
        held();
        await writeJsonState(file, value);
      }
      return result;
    },
    onNotice,
  );
}
