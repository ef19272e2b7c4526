import { closeSync, fstatSync, readSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { ToolError } from "../errors.js";
import { openFileInside, openFileInsideSync, readOpened } from "./open-inside.js";
import { utf16Text } from "./utf16-text.js";

/** Files up to this size are read whole (bytes); larger ones are streamed line by line. */
export const GREP_IN_MEMORY_BYTES = 5 * 1024 * 1024;
/** Marks a file that led outside the boundary when opened (a folder swapped for a link): skipped. */
export const OUTSIDE = Symbol("outside");
/** `readTextSync` could not decide without awaiting: read the file with `readText`. */
export const NOT_SYNC = Symbol("not-sync");

/**
 * What grep reads of one file: its text; `null` for binary (a NUL in the first 8 KiB); the open handle for a
 * file over GREP_IN_MEMORY_BYTES (to stream; the caller closes it); OUTSIDE when it led outside the boundary
 * when opened; `undefined` if unreadable.
 */
export type GrepRead = string | FileHandle | typeof OUTSIDE | null | undefined;

/** A file's bytes as grep searches them (see `GrepRead`). */
function decode(buf: Buffer): string | null {
  const utf16 = utf16Text(buf);
  if (utf16) return utf16.text;
  if (buf.subarray(0, 8192).includes(0)) return null;
  return buf.toString("utf8");
}

function openError(error: unknown): typeof OUTSIDE | undefined {
  return error instanceof ToolError && error.code === "permission_denied" ? OUTSIDE : undefined;
}

/** Reads `file` (see `GrepRead`), opened once and checked (see `openFileInside`). */
export async function readText(root: string, file: string, signal: AbortSignal): Promise<GrepRead> {
  let handle: FileHandle;
  try {
    handle = await openFileInside(root, file, file);
  } catch (error) {
    return openError(error);
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) return void (await handle.close());
    if (st.size > GREP_IN_MEMORY_BYTES) return handle;
    signal.throwIfAborted();
    const buf = await readOpened(handle, st.size);
    await handle.close();
    return decode(buf);
  } catch {
    await handle.close().catch(() => undefined);
    return undefined;
  }
}

/**
 * `readText` without a promise per syscall, for the common case: a regular file of at most
 * GREP_IN_MEMORY_BYTES that `openFileInsideSync` accepts (the same open and the same descriptor check).
 * NOT_SYNC for anything else (a file to stream, or one that needs `openFileInside`'s full check): the
 * caller then calls `readText`, which opens the file anew and checks it.
 */
export function readTextSync(root: string, file: string): Exclude<GrepRead, FileHandle> | typeof NOT_SYNC {
  let fd: number | undefined;
  try {
    fd = openFileInsideSync(root, file, file);
  } catch (error) {
    return openError(error);
  }
  if (fd === undefined) return NOT_SYNC;
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return undefined;
    // (size 0 may be a procfs-like file that reads more than it reports: readText reads such to the end)
    if (st.size > GREP_IN_MEMORY_BYTES || st.size === 0) return NOT_SYNC;
    const buf = Buffer.allocUnsafe(st.size);
    let off = 0;
    while (off < st.size) {
      const n = readSync(fd, buf, off, st.size - off, off);
      if (n === 0) break;
      off += n;
    }
    return decode(off < st.size ? buf.subarray(0, off) : buf);
  } catch {
    return undefined;
  } finally {
    closeQuietly(fd);
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // (a close error loses nothing: the file was only read)
  }
}
