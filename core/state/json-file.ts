import { mkdir, readFile } from "node:fs/promises";
import { dirname } from "node:path";
import writeFileAtomic from "write-file-atomic";
import lockfile from "proper-lockfile";
import { StateError, errorMessage } from "../errors.js";

/**
 * Reads a JSON state file. Missing file → `fallback`. A file that cannot be parsed
 * throws `StateError` naming the file (the caller must not overwrite it).
 */
export async function readJsonState<T>(file: string, fallback: T): Promise<T> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return fallback;
    throw new StateError(`Cannot read state file ${file}: ${errorMessage(error)}`, file, { cause: error });
  }
  if (text.trim() === "") return fallback;
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new StateError(
      `State file ${file} is not valid JSON (${errorMessage(error)}). keel left it untouched: fix or move it, then retry.`,
      file,
      { cause: error },
    );
  }
}

/** Writes JSON atomically: temp file, fsync, rename. Creates parent directories. */
export async function writeJsonState(file: string, value: unknown): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFileAtomic(file, JSON.stringify(value, null, 2) + "\n", { fsync: true });
}

/** Writes text atomically (temp file, fsync, rename). Creates parent directories. */
export async function writeTextAtomic(file: string, text: string | Buffer): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFileAtomic(file, text, { fsync: true });
}

/**
 * Runs `fn` while holding an inter-process lock on `file` (the file need not exist).
 * Retries for up to ~10 s, then fails with a message naming the file.
 */
export async function withFileLock<T>(file: string, fn: () => Promise<T>): Promise<T> {
  await mkdir(dirname(file), { recursive: true });
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(file, {
      realpath: false,
      stale: 10_000,
      update: 2_000,
      retries: { retries: 200, factor: 1.2, minTimeout: 5, maxTimeout: 100, randomize: true },
    });
  } catch (error) {
    throw new StateError(`Could not lock ${file}: ${errorMessage(error)}. Another keel process may hold it; retry.`, file, {
      cause: error,
    });
  }
  try {
    return await fn();
  } finally {
    await release().catch(() => undefined);
  }
}

/**
 * Read-modify-write a JSON state file under its lock, atomically. `update` returns the
 * new value (or `undefined` to leave the file as is) and a result for the caller.
 */
export async function updateJsonState<T, R>(
  file: string,
  fallback: T,
  update: (current: T) => Promise<{ value?: T; result: R }> | { value?: T; result: R },
): Promise<R> {
  return withFileLock(file, async () => {
    const current = await readJsonState(file, fallback);
    const { value, result } = await update(current);
    if (value !== undefined) await writeJsonState(file, value);
    return result;
  });
}
