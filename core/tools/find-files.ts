import { existsSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";
import { ToolError } from "../errors.js";
import { compileGlob } from "../glob-matcher.js";
import { globWalkPlan } from "../glob/walk-plan.js";
import { realOrSelf } from "../real-path.js";
import { lossyPath } from "../shown-path.js";
import { inside } from "./confine-path.js";

/** Folders glob and grep skip unless asked to include them (`.keel` holds keel's own state and artifacts). */
export const DEFAULT_IGNORES = ["**/.git/**", "**/node_modules/**", "**/.keel/**"];

/** The names DEFAULT_IGNORES skip at any depth: such a folder is not entered, such a file (a worktree's `.git`) not listed. */
const IGNORED_NAMES = new Set([".git", "node_modules", ".keel"]);

/** Options of `findFiles`. */
export interface FindFilesOptions {
  /** Also walk `.git`, `node_modules` and `.keel`, and what `gitIgnored` says is ignored. */
  includeIgnored?: boolean;
  /**
   * Whether a path met while walking (absolute; a folder when `isDir`) is ignored, e.g. by `.gitignore`
   * (`GitIgnores`): such a folder is not entered, such a file not listed (unless `includeIgnored`).
   */
  gitIgnored?: (abs: string, isDir: boolean) => boolean;
  /** Called with each folder or file left out because `gitIgnored` said so (not what is inside such a folder). */
  onIgnored?: () => void;
  /** Return directories too (with a trailing `/`); glob and grep want files only (the default). */
  onlyFiles?: boolean;
  /**
   * The confinement boundary: a folder the pattern names literally (`src` of `src/**`) that really
   * leads outside it (a committed link `src → /`) is refused before anything is walked.
   */
  root?: string;
  signal?: AbortSignal;
  /**
   * Called with each folder (relative to `dir`) the walk could not enter because its name is not valid UTF-8
   * (it arrives with U+FFFD, and no folder of that name exists): what it holds is not searched.
   */
  onUnwalkable?: (folder: string) => void;
}

/**
 * Files under `dir` (absolute, already confined) matching `pattern`, as paths relative to `dir`,
 * sorted. Never follows symlinks while walking (so it cannot walk out of the workspace; a folder
 * the pattern names literally is opened as the OS resolves it, and callers check real paths). The
 * pattern is matched in time linear in pattern × path (`compileGlob`), whoever wrote it: a model's
 * `*a*a*a*a*a*a*b` cannot block the event loop. The walk starts at the pattern's literal prefix and
 * stops at the depth it can reach (`globWalkPlan`). Throws ToolError for a pattern that is absolute,
 * climbs with `..`, or uses syntax outside `*`, `**`, `?`, `[...]`, `{a,b}` that cannot be matched
 * in bounded time, or whose literal folder leads outside `opts.root` (nothing is walked then).
 * A folder whose name is not valid UTF-8 cannot be walked: it is passed to `opts.onUnwalkable`.
 * `opts.gitIgnored` prunes what is met below `dir` (the start folder itself, named by the caller, is walked).
 */
export async function findFiles(dir: string, pattern: string, opts: FindFilesOptions = {}): Promise<string[]> {
  if (pattern === "") return [];
  if (isAbsolute(pattern) || pattern.split(/[\\/]/).includes(".."))
    throw new ToolError(
      `Pattern "${pattern}" leaves the search folder. Use a relative pattern such as "src/**/*.ts" and set \`path\` to choose the folder.`,
      "permission_denied",
    );
  const plan = globWalkPlan(pattern);
  const compiled = compileGlob(plan.pattern, { dot: true });
  if ("unsupported" in compiled)
    throw new ToolError(
      `Pattern "${pattern}" uses syntax glob and grep cannot match in bounded time (an extglob such as !(x) or *(x), or a [!...] class). Supported: * (within a name), ** (any depth of folders), ? (one character), [abc], [a-z], [^a] and {a,b}; rewrite the pattern with those.`,
      "execution_failed",
    );
  const includeIgnored = opts.includeIgnored === true;
  const gitIgnored = includeIgnored ? undefined : opts.gitIgnored;
  const skip = (abs: string, isDir: boolean): boolean => {
    if (!gitIgnored?.(abs, isDir)) return false;
    opts.onIgnored?.();
    return true;
  };
  if (!includeIgnored && plan.base.some((name) => IGNORED_NAMES.has(name))) return [];
  const start = join(dir, ...plan.base);
  if (opts.root !== undefined && plan.base.length > 0) {
    // Walking through a link to `/` would cost the whole tree it reaches (every match is dropped later anyway).
    const real = realOrSelf(start);
    if (!inside(realOrSelf(opts.root), real))
      throw new ToolError(
        `"${plan.base.join("/")}" of pattern "${pattern}" leads outside the workspace (a symbolic link to ${real}); nothing was searched there. Search inside the workspace.`,
        "permission_denied",
      );
  }
  const match = compiled.match;
  const prefix = plan.base.length > 0 ? plan.base.join("/") + "/" : "";
  // Loaded on the first search (most commands never glob).
  const { fdir } = await import("fdir");
  const maxDepth = plan.depth === undefined ? Infinity : plan.depth - 1;
  opts.signal?.throwIfAborted();
  const crawler = new fdir({
    pathSeparator: "/",
    relativePaths: true,
    excludeSymlinks: true,
    includeDirs: opts.onlyFiles === false,
    maxDepth,
    exclude: (name, path) => {
      if (!includeIgnored && IGNORED_NAMES.has(name)) return true;
      if (gitIgnored && skip(path.endsWith("/") ? path.slice(0, -1) : path, true)) return true;
      // (a name that really holds U+FFFD, written as valid UTF-8, exists by that name and is walked)
      if (!lossyPath(name) || existsSync(path)) return false;
      // Node gives such a name with U+FFFD in place of its bad bytes: no folder of that name can be read.
      // (Reported only where the walk would have entered it: not below the depth the pattern reaches.)
      const rel = relative(start, path);
      if (maxDepth === Infinity || rel.split(sep).length <= maxDepth) opts.onUnwalkable?.(prefix + rel.split(sep).join("/"));
      return true;
    },
    filters: [
      (path, isDirectory) => {
        if (!isDirectory)
          return (
            (includeIgnored || !IGNORED_NAMES.has(path.slice(path.lastIndexOf("/") + 1))) &&
            match(prefix + path) &&
            !(gitIgnored && skip(join(start, path), false))
          );
        // A folder comes with a trailing `/`; the start folder is `.` (listed only when it is itself named by the pattern).
        const folder = path === "." ? prefix.slice(0, -1) : prefix + path.slice(0, -1);
        return folder !== "" && match(folder);
      },
    ],
    signal: opts.signal,
  });
  const found = await crawler.crawl(start).withPromise();
  // fdir stops early, without an error, when the signal aborts.
  opts.signal?.throwIfAborted();
  return (prefix === "" ? found : found.map((p) => (p === "." ? prefix : prefix + p))).sort();
}
