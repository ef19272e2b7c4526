import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { ToolError } from "../errors.js";
import { gitTopAt } from "../git-marker.js";
import { resolvableAncestor } from "../real-path.js";
import { pathTooLongMessage, storageMessage } from "../state/storage-problem.js";

/**
 * Resolves a tool's path argument (relative to `base`, default `root`) inside `root` (the
 * workspace or the managed worktree the call runs in) and
 * refuses, before any I/O on the target, anything that leaves it: `..` escapes, absolute
 * paths outside, and symlinks (on any existing component) pointing outside.
 * Throws ToolError(`permission_denied`) naming the path. Returns the absolute path.
 */
export function confinePath(root: string, p: string, field = "path", base = root, depth = 0): string {
  if (typeof p !== "string" || p.trim() === "") throw new ToolError(`\`${field}\` must be a non-empty path.`, "precondition_failed");
  if (p.includes("\u0000")) throw new ToolError(`\`${field}\` contains a NUL byte.`, "permission_denied");
  const abs = resolve(base, p);
  if (!inside(root, abs))
    throw new ToolError(
      `Path "${p}" is outside the workspace (${root}). Only paths inside the workspace are allowed; use a relative path such as "src/file.ts".`,
      "permission_denied",
      null,
      { path: p, reason: isAbsolute(p) ? "absolute_outside" : "escapes_workspace" },
    );
  // `root` is normally a real path already (the workspace and worktrees are resolved); only
  // resolve it when a target seems outside, which keeps the common case to one syscall.
  let realRoot: string | undefined;
  const insideRoot = (real: string) => inside(root, real) || inside((realRoot ??= realpathSync.native(root)), real);
  // No file has a longer path (the system refuses it), and walking up from one would copy it once per segment.
  if (resolvableAncestor(abs) !== abs)
    throw new ToolError(
      `Cannot use the path: ${pathTooLongMessage(abs)} No file has it: use list_dir or glob to find the right path.`,
      "execution_failed",
      null,
      { reason: "too_long" },
    );
  // Find the deepest existing ancestor (or the path itself) and check where it really points.
  let probe = abs;
  for (;;) {
    let real: string | undefined;
    try {
      real = realpathSync.native(probe);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENAMETOOLONG") throw new ToolError(`Cannot use the path: ${storageMessage(error)}`, "execution_failed");
      if (code !== "ENOENT" && code !== "ENOTDIR") throw new ToolError(`Cannot resolve "${p}": ${(error as Error).message}`, "execution_failed");
      // A dangling symlink: writing through it would create its target, so the target must stay inside too.
      const link = danglingLinkTarget(probe);
      if (link !== undefined) {
        if (depth >= 16) throw new ToolError(`Path "${p}" goes through too many symlinks.`, "permission_denied", null, { path: p, reason: "symlink_loop" });
        const target = probe === abs ? link : resolve(link, relative(probe, abs));
        if (!inside(root, target) && !inside((realRoot ??= realpathSync.native(root)), target))
          throw new ToolError(
            `Path "${p}" is a symlink to ${link}, outside the workspace. keel refuses to follow links that leave the workspace.`,
            "permission_denied",
            null,
            { path: p, reason: "symlink_escape" },
          );
        return confinePath(root, target, field, base, depth + 1);
      }
    }
    if (real !== undefined) {
      if (!insideRoot(real))
        throw new ToolError(
          `Path "${p}" resolves through a symlink to ${real}, outside the workspace. keel refuses to follow links that leave the workspace.`,
          "permission_denied",
          null,
          { path: p, reason: "symlink_escape" },
        );
      return probe === abs ? real : resolve(real, relative(probe, abs));
    }
    const parent = dirname(probe);
    if (parent === probe) return abs;
    probe = parent;
  }
}

/** The absolute target of `path` when it is a symlink (dangling or not), else undefined. */
function danglingLinkTarget(path: string): string | undefined {
  try {
    if (!lstatSync(path).isSymbolicLink()) return undefined;
    return resolve(dirname(path), readlinkSync(path));
  } catch {
    return undefined;
  }
}

/** True when `child` is `root` or below it (lexically). */
export function inside(root: string, child: string): boolean {
  const rel = relative(root, child);
  return rel === "" || (!rel.startsWith(".." + sep) && rel !== ".." && !isAbsolute(rel));
}

/** Workspace-relative display form of an absolute path ("." for the root). */
export function displayPath(root: string, abs: string): string {
  return relative(root, abs) || ".";
}

/**
 * The confinement boundary for a working directory: the managed worktree it lies in
 * (`<stateDir>/worktrees/<name>`, or the workspace's subfolder in it when the workspace is a
 * subfolder of its repository and `cwd` is inside that), else the workspace root. Derived, never
 * stored, and never wider than the workspace root: a worktree folder reached through a symlink,
 * or a `cwd` outside the workspace, gets the workspace root (so an outside `cwd` reaches nothing).
 */
export function confinementRoot(workspaceRoot: string, stateDir: string, cwd: string): string {
  const worktrees = resolve(stateDir, "worktrees");
  if (inside(worktrees, cwd) && cwd !== worktrees) {
    const worktree = resolve(worktrees, relative(worktrees, cwd).split(sep)[0]!);
    if (!reallyAt(worktree)) return workspaceRoot;
    const sub = workspaceDirIn(worktree, workspaceRoot);
    return inside(sub, cwd) ? sub : worktree;
  }
  return workspaceRoot;
}

/** True when `dir` is its own real path (no symlink on the way) or does not exist (nothing there to follow). */
function reallyAt(dir: string): boolean {
  try {
    return realpathSync.native(dir) === dir;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT";
  }
}

/**
 * The workspace's directory inside a git worktree of its repository: the worktree path plus the
 * workspace root's path relative to the repository's top level (the nearest ancestor holding `.git`; an
 * empty `.git` folder, the sandbox's placeholder, is none).
 */
export function workspaceDirIn(worktree: string, workspaceRoot: string): string {
  const top = gitTopAt(workspaceRoot);
  return top === undefined ? worktree : join(worktree, relative(top, workspaceRoot));
}
