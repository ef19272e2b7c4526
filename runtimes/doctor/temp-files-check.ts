import { lstat, readdir } from "node:fs/promises";
import { join, relative } from "node:path";
import { findStaleTemps, type Host } from "../../core/index.js";
import { check, type DoctorCheck } from "./doctor-check.js";

/** How an older keel named the temp files of `write_file`/`edit_file` (`.<name>.<hex>.keel-tmp`): no pid to tell whether its writer lives. */
const OLDER_TEMP = /^\..+\.[0-9a-f]{12}\.keel-tmp$/;
/** Names listed in the message; the rest are counted. */
const SHOWN = 10;

/**
 * The temp files a killed keel left in the folders keel writes most (the workspace root, `.keel/`, `.keel/state/`
 * and `$KEEL_HOME`; no walk below them): a warning listing them, with how to remove them. Only reads; never throws.
 */
export async function tempFilesCheck(host: Host): Promise<DoctorCheck> {
  const { root, stateDir, keelHome } = host.workspace;
  const stale: string[] = [];
  const older: string[] = [];
  for (const dir of [root, stateDir, join(stateDir, "state"), keelHome]) {
    // A linked .keel is refused by keel anyway; what it leads to is not the workspace's.
    if (
      !(await lstat(dir).then(
        (s) => s.isDirectory(),
        () => false,
      )) &&
      dir !== keelHome
    )
      continue;
    for (const name of await findStaleTemps(dir)) stale.push(shown(root, join(dir, name)));
    for (const name of await olderTemps(dir)) older.push(shown(root, join(dir, name)));
  }
  if (!stale.length && !older.length) return check("temp files", "ok", "no temp files left by a killed keel in the workspace root, .keel/ or $KEEL_HOME");
  const parts = [];
  if (stale.length) parts.push(`${count(stale.length)} left by a keel that was killed while writing: ${list(stale)}`);
  if (older.length) parts.push(`${count(older.length)} left by an older keel (no pid in the name): ${list(older)}`);
  const fix = [
    stale.length ? "no process writes those left by a killed keel any more: delete them (keel's next write of the same file also removes each)" : "",
    older.length ? "delete an older keel's once no keel is running in this workspace" : "",
  ]
    .filter(Boolean)
    .join("; ");
  return check("temp files", "warn", parts.join("; "), fix);
}

/** Regular files in `dir` named as an older keel named its tool temp files. */
async function olderTemps(dir: string): Promise<string[]> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => OLDER_TEMP.test(n));
  const files: string[] = [];
  for (const name of names)
    if (
      await lstat(join(dir, name)).then(
        (s) => s.isFile(),
        () => false,
      )
    )
      files.push(name);
  return files.sort();
}

function shown(root: string, path: string): string {
  const rel = relative(root, path);
  return JSON.stringify(rel.startsWith("..") ? path : rel);
}

function count(n: number): string {
  return `${n} temp file${n === 1 ? "" : "s"}`;
}

function list(names: string[]): string {
  return names.length > SHOWN ? `${names.slice(0, SHOWN).join(", ")} and ${names.length - SHOWN} more` : names.join(", ");
}
