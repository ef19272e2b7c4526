import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { ManifestError } from "./errors.js";

/** Largest manifest (plugin.json, .mcp.json, workflow file) keel reads. */
export const MAX_MANIFEST_BYTES = 1024 * 1024;
/** Largest config file keel reads. */
export const MAX_CONFIG_BYTES = 10 * 1024 * 1024;

/**
 * Reads a file that must be a regular file of at most `maxBytes`, as UTF-8 (a BOM is dropped).
 * Opens without blocking (a FIFO is refused at once, never waited on) and checks the opened
 * descriptor, so a manifest symlinked to `/dev/zero`, a FIFO, a directory or a huge file is refused
 * within a moment and memory stays bounded. Throws ManifestError naming the file and the reason;
 * a missing file throws the usual ENOENT error.
 */
export function readRegularFile(file: string, maxBytes: number): string {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new ManifestError(`${file} is not a regular file (${kindOf(st)}); keel reads manifests and config only from regular files.`, file);
    if (st.size > maxBytes)
      throw new ManifestError(`${file} is ${st.size} bytes, more than the ${maxBytes} bytes keel reads from such a file; it was not read.`, file);
    // Read at most maxBytes + 1: a file that grows while being read is still caught.
    const buf = Buffer.alloc(Math.min(st.size, maxBytes) + 1);
    let len = 0;
    for (;;) {
      const n = readSync(fd, buf, len, buf.length - len, null);
      if (n === 0) break;
      len += n;
      if (len > maxBytes) throw new ManifestError(`${file} grew past ${maxBytes} bytes while being read; it was not read.`, file);
      if (len === buf.length) break;
    }
    const text = buf.subarray(0, len).toString("utf8");
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } finally {
    closeSync(fd);
  }
}

/**
 * Why `file` is not a regular file of at most `maxBytes` (without reading it), or undefined when it
 * is one or does not exist. Opens without blocking and checks the descriptor. Never throws.
 */
export function irregularFileProblem(file: string, maxBytes: number): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" ? undefined : `${file} cannot be opened (${code ?? (error as Error).message})`;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return `${file} is not a regular file (${kindOf(st)}); keel reads manifests and config only from regular files.`;
    if (st.size > maxBytes) return `${file} is ${st.size} bytes, more than the ${maxBytes} bytes keel reads from such a file; it was not read.`;
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function kindOf(st: import("node:fs").Stats): string {
  if (st.isDirectory()) return "a directory";
  if (st.isFIFO()) return "a FIFO";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  if (st.isSocket()) return "a socket";
  return "not a file";
}
