import { realpathSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import type { PermissionPolicy } from "../permissions.js";
import { inside } from "./confine-path.js";

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
  /** Matches whose real path is outside the boundary (reached through a symlinked folder named in the pattern). */
  skippedOutside: number;
  /** Matches a path deny rule of one of the tools denies (relative to the boundary, after resolution). */
  skippedDenied: number;
  /** The deny rules that did it, once each. */
  deniedBy: string[];
}

/**
 * Filters matches of a walk under `dir` (relative to it) down to those glob and grep may reveal:
 * the real path of each (its folder resolved once per folder; the walk never returns a symlink
 * itself) must lie inside `root`, and no path deny rule for `tools` (e.g. `read_file(.env)`) may
 * deny it, matched on the real path relative to the real root. Keeps the order. Never throws.
 */
export function reachableFiles(root: string, dir: string, matches: readonly string[], policy: PermissionPolicy, tools: readonly string[]): ReachableFiles {
  const realRoot = realOr(root) ?? root;
  const folders = new Map<string, string | undefined>();
  const out: ReachableFiles = { files: [], skippedOutside: 0, skippedDenied: 0, deniedBy: [] };
  for (const match of matches) {
    const path = join(dir, match);
    const folder = dirname(path);
    let realFolder = folders.get(folder);
    if (!folders.has(folder)) {
      const real = realOr(folder);
      realFolder = real !== undefined && (inside(realRoot, real) || inside(root, real)) ? real : undefined;
      folders.set(folder, realFolder);
    }
    if (realFolder === undefined) {
      out.skippedOutside++;
      continue;
    }
    const real = join(realFolder, basename(path));
    const rule = policy.deniesPath(tools, relative(realRoot, real) || ".");
    if (rule !== undefined) {
      out.skippedDenied++;
      if (!out.deniedBy.includes(rule)) out.deniedBy.push(rule);
      continue;
    }
    out.files.push({ path, real });
  }
  return out;
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
