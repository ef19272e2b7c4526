import { isAbsolute } from "node:path";
import { ToolError } from "../errors.js";

/** Folders glob and grep skip unless asked to include them (`.keel` holds keel's own state and artifacts). */
export const DEFAULT_IGNORES = ["**/.git/**", "**/node_modules/**", "**/.keel/**"];

/** Options of `findFiles`. */
export interface FindFilesOptions {
  /** Also walk `.git` and `node_modules`. */
  includeIgnored?: boolean;
  /** Return directories too (glob); grep wants files only. */
  onlyFiles?: boolean;
  signal?: AbortSignal;
}

/**
 * Files under `dir` (absolute, already confined) matching `pattern`, as paths relative to `dir`,
 * sorted. Never follows symlinks (so it cannot walk out of the workspace). Throws ToolError for a
 * pattern that is absolute or climbs with `..`.
 */
export async function findFiles(dir: string, pattern: string, opts: FindFilesOptions = {}): Promise<string[]> {
  if (isAbsolute(pattern) || pattern.split(/[\\/]/).includes(".."))
    throw new ToolError(
      `Pattern "${pattern}" leaves the search folder. Use a relative pattern such as "src/**/*.ts" and set \`path\` to choose the folder.`,
      "permission_denied",
    );
  // Loaded on the first search (most commands never glob).
  const { glob } = await import("tinyglobby");
  const found = await glob(pattern, {
    cwd: dir,
    dot: true,
    followSymbolicLinks: false,
    onlyFiles: opts.onlyFiles ?? true,
    ignore: opts.includeIgnored ? [] : DEFAULT_IGNORES,
    expandDirectories: false,
    signal: opts.signal,
  });
  return found.sort();
}
