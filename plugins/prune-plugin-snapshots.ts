import { randomBytes } from "node:crypto";
import { chmodSync, lstatSync, readdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";

/** A pinned copy no keel has used for this long is removed (its mtime is touched each time one imports from it). */
export const SNAPSHOT_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;

/** A temporary folder of a copy being written, left this long, is from a keel that stopped half-way. */
const TEMP_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/**
 * Removes pinned copies of workspace code plugins (`dir` is `$KEEL_HOME/state/code-plugins/`) no
 * keel has used for `SNAPSHOT_MAX_AGE_MS` (a plugin changed and trusted again leaves its old copy
 * behind), and temporary folders of copies left half-written, but never `keep` (the copies this
 * start uses). One directory listing and one lstat per copy; a copy is renamed aside before it is
 * deleted, so a keel starting at that moment finds it whole or not at all. Never throws.
 */
export function prunePluginSnapshots(dir: string, keep: ReadonlySet<string>, now = Date.now()): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const path = join(dir, name);
    if (keep.has(path)) continue;
    try {
      const st = lstatSync(path);
      if (!st.isDirectory()) continue;
      const age = now - st.mtimeMs;
      if (name.startsWith(".trash-") || (name.startsWith(".tmp-") && age > TEMP_MAX_AGE_MS)) removeSnapshotDir(path);
      else if (!name.startsWith(".") && age > SNAPSHOT_MAX_AGE_MS) {
        const aside = join(dir, `.trash-${randomBytes(6).toString("hex")}`);
        renameSync(path, aside);
        removeSnapshotDir(aside);
      }
    } catch {
      // Gone already (another keel pruned it), or not ours to remove: leave it.
    }
  }
}

/** Deletes a (read-only) copy: gives its folders write permission back, then removes the tree. Never throws. */
export function removeSnapshotDir(dir: string): void {
  try {
    const dirs = [dir];
    for (let i = 0; i < dirs.length; i++) {
      chmodSync(dirs[i]!, 0o755);
      for (const entry of readdirSync(dirs[i]!, { withFileTypes: true })) if (entry.isDirectory()) dirs.push(join(dirs[i]!, entry.name));
    }
  } catch {
    // As far as it goes: rmSync reports nothing either.
  }
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    // Left for the next start's pruning.
  }
}
