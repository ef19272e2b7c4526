import { existsSync, realpathSync, statSync } from "node:fs";
import { UsageError } from "./errors.js";
import { homedir } from "node:os";
import { dirname, join, resolve, sep } from "node:path";

/** Where things live for one invocation (architecture section 6). */
export interface Workspace {
  /** Nearest ancestor of `cwd` holding `.git` or `.keel`, else `cwd`; inside a managed worktree, the workspace owning it. Real path. */
  root: string;
  /** The directory keel was started in (real path). */
  cwd: string;
  /** `<root>/.keel`. Created on first write. */
  stateDir: string;
  /** `$KEEL_HOME`, default `~/.keel`. */
  keelHome: string;
}

/** Resolves the workspace for a working directory. Never creates anything. A missing or non-directory cwd is a UsageError. */
export function resolveWorkspace(cwd: string, env: NodeJS.ProcessEnv = process.env): Workspace {
  const real = realDirectory(resolve(cwd));
  let root = real;
  for (let dir = real; ; dir = dirname(dir)) {
    if (existsSync(join(dir, ".git")) || existsSync(join(dir, ".keel"))) {
      root = dir;
      break;
    }
    if (dirname(dir) === dir) break;
  }
  root = owningWorkspace(real) ?? root;
  const keelHome = resolve(env.KEEL_HOME && env.KEEL_HOME.trim() ? env.KEEL_HOME : join(homedir(), ".keel"));
  return { root, cwd: real, stateDir: join(root, ".keel"), keelHome };
}

/**
 * The workspace a directory inside one of its managed worktrees (`<root>/.keel/worktrees/<name>`,
 * a git worktree) belongs to: `<root>`. Undefined for any other directory.
 */
export function owningWorkspace(dir: string): string | undefined {
  const segs = dir.split(sep);
  for (let i = 0; i + 2 < segs.length; i++) {
    if (segs[i] !== ".keel" || segs[i + 1] !== "worktrees") continue;
    const parent = segs.slice(0, i).join(sep) || sep;
    if (existsSync(join(parent, ".keel", "worktrees", segs[i + 2]!, ".git"))) return parent;
  }
  return undefined;
}

/** Directories from `cwd` up to `root` inclusive, nearest first. Never goes above `root`. */
export function ancestorsWithin(cwd: string, root: string): string[] {
  const out: string[] = [];
  for (let dir = cwd; ; dir = dirname(dir)) {
    out.push(dir);
    if (dir === root || dirname(dir) === dir) break;
  }
  if (out[out.length - 1] !== root) return [cwd];
  return out;
}

function realDirectory(dir: string): string {
  let real: string;
  try {
    real = realpathSync.native(dir);
  } catch {
    throw new UsageError(`The working directory ${dir} does not exist. Pass an existing directory to --cwd.`);
  }
  if (!statSync(real).isDirectory()) throw new UsageError(`The working directory ${dir} is not a directory. Pass a directory to --cwd.`);
  return real;
}
