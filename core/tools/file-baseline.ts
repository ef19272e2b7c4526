import type { Stats } from "node:fs";
import { createHash } from "../lazy-crypto.js";
import type { FileBaseline } from "../types.js";

/** The read-before-edit baseline of a file's bytes and stat: size, mtime and sha1. Pure. */
export function baselineOf(stat: Pick<Stats, "size" | "mtimeMs">, bytes: Buffer): FileBaseline {
  return { size: stat.size, mtimeMs: stat.mtimeMs, hash: createHash("sha1").update(bytes).digest("hex") };
}

/** True when two baselines describe the same file content and stat. */
export function sameBaseline(a: FileBaseline, b: FileBaseline): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.hash === b.hash;
}
