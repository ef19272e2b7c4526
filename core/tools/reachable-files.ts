import { realpathSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { basename, dirname, join, relative } from "node:path";
import type { PermissionPolicy } from "../permissions.js";
import { openDirInside } from "./open-inside.js";

/** A match glob or grep may list or read: its path as walked and where it really is. */
export interface ReachableFile {
  /** Absolute path as found under the search folder. */
  path: string;
  /** Absolute real path (inside the boundary). */
  real: string;
}

/** What `reachableFiles` kept and what it left out. */
export interface ReachableFiles {
  files: ReachableFile[];
  /** Matches whose real path is outside the boundary (reached through a symlinked folder), or gone. */
  skippedOutside: number;
  /** Matches a path deny rule of one of the tools denies (relative to the boundary, after resolution). */
  skippedDenied: number;
  /** The deny rules that did it, once each. */
  deniedBy: string[];
}

/**
 * Filters matches of a walk under `dir` (relative to it) down to those glob and grep may reveal.
 * Each match's folder is resolved and opened once, checked inside `root` through its descriptor
 * (see `openDirInside`), and listed through it: a match is kept only when its name is there (not
 * as a symlink), so a folder swapped for a link while the walk ran cannot smuggle in names from
 * outside. No path deny rule for `tools` (e.g. `read_file(.env)`) may deny it, matched on the real
 * path relative to the real root. Keeps the order. Throws only when `signal` aborts.
 */
export async function reachableFiles(
  root: string,
  dir: string,
  matches: readonly string[],
  policy: PermissionPolicy,
  tools: readonly string[],
  signal?: AbortSignal,
): Promise<ReachableFiles> {
  const realRoot = realOr(root) ?? root;
  const folders = new Map<string, Folder | undefined>();
  for (const match of matches) folders.set(dirname(join(dir, match)), undefined);
  const pending = [...folders.keys()];
  for (let i = 0; i < pending.length; i += FOLDER_BATCH) {
    signal?.throwIfAborted();
    const batch = pending.slice(i, i + FOLDER_BATCH);
    const opened = await Promise.all(batch.map((f) => openFolder(root, f)));
    batch.forEach((f, j) => folders.set(f, opened[j]));
  }
  const out: ReachableFiles = { files: [], skippedOutside: 0, skippedDenied: 0, deniedBy: [] };
  for (const match of matches) {
    const path = join(dir, match);
    const folder = folders.get(dirname(path));
    const name = basename(path);
    if (folder === undefined || !folder.names.has(name)) {
      out.skippedOutside++;
      continue;
    }
    const real = join(folder.real, name);
    const rule = policy.hides(real) ? HIDDEN : policy.deniesPath(tools, relative(realRoot, real) || ".");
    if (rule !== undefined) {
      out.skippedDenied++;
      if (!out.deniedBy.includes(rule)) out.deniedBy.push(rule);
      continue;
    }
    out.files.push({ path, real });
  }
  return out;
}

/** Named in `deniedBy` for files keel hides from every tool (see `PermissionPolicy.hides`). */
const HIDDEN = "keel: its tokens and your credential stores stay hidden";

/** Folders opened at once. */
const FOLDER_BATCH = 32;

/** A folder checked inside the boundary: its real path and the names in it that are not symlinks. */
interface Folder {
  real: string;
  names: Set<string>;
}

async function openFolder(root: string, folder: string): Promise<Folder | undefined> {
  const real = realOr(folder);
  if (real === undefined) return undefined;
  try {
    const pinned = await openDirInside(root, real, folder);
    try {
      const names = new Set<string>();
      for (const e of await readdir(pinned.child(""), { withFileTypes: true })) if (!e.isSymbolicLink()) names.add(e.name);
      return { real: pinned.path, names };
    } finally {
      await pinned.close();
    }
  } catch {
    return undefined;
  }
}

/** The tools whose path deny rules hide a file from glob and grep walks. */
export const READ_TOOLS: readonly string[] = ["read_file", "grep", "glob"];

function realOr(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}
