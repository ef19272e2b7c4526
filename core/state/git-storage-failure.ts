import { statfsSync } from "node:fs";
import { dirname } from "node:path";
import { storageMessage } from "./storage-problem.js";

/** git's (the C library's) texts for the errno codes `storageMessage` explains. */
const STRERROR: ReadonlyArray<[string, string]> = [
  ["No space left on device", "ENOSPC"],
  ["Disk quota exceeded", "EDQUOT"],
  ["File too large", "EFBIG"],
  ["Read-only file system", "EROFS"],
];

/** Below this many free bytes a failed git write is taken as a full disk (git does not always say why a write failed). */
const NEARLY_FULL_BYTES = 1024 * 1024;

/**
 * What a failed git command's output means when the failure is a storage one, with what to do next
 * (`storageMessage`'s words), or undefined when it is not: git names the errno (`No space left on device`,
 * `Disk quota exceeded`, `File too large`, `Read-only file system`), or git says a write failed
 * (`unable to write`, `could not write`, `couldn't write`, …) and the disk holding one of `dirs` has less than
 * 1 MiB free. Never throws.
 */
export function gitStorageMessage(gitOutput: string, dirs: readonly string[]): string | undefined {
  const named = STRERROR.find(([text]) => gitOutput.includes(text));
  const line = firstLine(gitOutput, named?.[0]);
  if (named !== undefined) return storageMessage(Object.assign(new Error(`git: ${line}`), { code: named[1] }), dirs[0]);
  if (!/unable to write|could not write|couldn't write|cannot write|unable to create|could not create|failed to write|short write/i.test(gitOutput))
    return undefined;
  for (const dir of dirs) {
    const free = freeBytes(dir);
    if (free !== undefined && free < NEARLY_FULL_BYTES)
      return storageMessage(Object.assign(new Error(`git: ${line}; ${Math.floor(free / 1024)} KiB left free there`), { code: "ENOSPC", path: dir }));
  }
  return undefined;
}

function firstLine(output: string, containing?: string): string {
  const lines = output
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const line =
    (containing !== undefined ? lines.find((l) => l.includes(containing)) : undefined) ?? lines.find((l) => /write|create/i.test(l)) ?? lines[0] ?? "";
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** Bytes an unprivileged user may still write on the file system holding `path` (or its nearest existing ancestor). */
function freeBytes(path: string): number | undefined {
  for (let dir = path, prev = ""; dir !== prev; prev = dir, dir = dirname(dir)) {
    try {
      const s = statfsSync(dir);
      return s.bavail * s.bsize;
    } catch {
      continue;
    }
  }
  return undefined;
}
