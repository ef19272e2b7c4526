import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { inside } from "./tools/confine-path.js";

/**
 * The absolute path of the program `name` that keel itself starts outside the OS sandbox (`bwrap`,
 * `git`, the `bash` running a hook, an unsandboxed server's command), looked up in `env.PATH` as a
 * shell would, except in folders a sandboxed command could have written: an entry that is relative
 * (`node_modules/.bin`, an empty entry: the current folder) or lies inside one of `writable` (the
 * workspace, the repository), checked where it resolves, is skipped, as is a program file that is
 * a link into one of them. So `npx keel` (which puts the project's `node_modules/.bin` first on
 * PATH) or direnv's `PATH_add bin` never make keel run a `bwrap` or `git` that a sandboxed command
 * wrote there. A name holding a `/` is returned as it is (a path the caller names on purpose), and
 * so is every name on Windows (PATHEXT and `.cmd` shims are left to the spawn; keel's sandbox is Linux only).
 * Undefined when no such program is found. Never throws.
 */
export function systemProgram(name: string, env: NodeJS.ProcessEnv, writable: readonly string[]): string | undefined {
  if (name.includes("/") || process.platform === "win32") return name;
  const avoided = avoidedDirs(writable);
  for (const dir of systemDirs(env, avoided)) {
    const file = join(dir, name);
    const real = realOrNone(file);
    if (!real || avoided.some((w) => inside(w, real)) || !executableFile(real)) continue;
    return file;
  }
  return undefined;
}

/**
 * `env` with its `PATH` cut to the folders `systemProgram` looks in (absolute entries outside
 * `writable`, resolved), for a program keel starts outside the sandbox: what that program looks
 * up in turn (git's `gpg` for a signed commit, its `git-lfs` filter, a `#!/usr/bin/env node`
 * script's `node`, xdg-open's helpers) is never found in the workspace either. Unchanged on
 * Windows and when `env` has no `PATH`. Never throws.
 */
export function systemEnv(env: NodeJS.ProcessEnv, writable: readonly string[]): NodeJS.ProcessEnv {
  if (process.platform === "win32" || env.PATH === undefined) return env;
  return { ...env, PATH: systemDirs(env, avoidedDirs(writable)).join(delimiter) };
}

/** The resolved absolute `PATH` folders of `env`, in order, without those inside one of `avoided` (real paths). */
function systemDirs(env: NodeJS.ProcessEnv, avoided: readonly string[]): string[] {
  const dirs: string[] = [];
  for (const entry of (env.PATH ?? "").split(delimiter)) {
    if (!entry || !isAbsolute(entry)) continue;
    const dir = realOrNone(entry);
    if (dir && !avoided.some((w) => inside(w, dir)) && !dirs.includes(dir)) dirs.push(dir);
  }
  return dirs;
}

function avoidedDirs(writable: readonly string[]): string[] {
  return writable.map(realOrNone).filter((dir): dir is string => dir !== undefined);
}

/**
 * `systemProgram`, or an Error naming where keel looked and what to do. `what` says what needs the
 * program ("The sandbox", "keel's git").
 */
export function requireSystemProgram(name: string, env: NodeJS.ProcessEnv, writable: readonly string[], what: string): string {
  const found = systemProgram(name, env, writable);
  if (found) return found;
  throw new Error(
    `${what} needs \`${name}\`, but no PATH folder outside the workspace holds it (keel never starts one found in the workspace or through a relative PATH entry, which a sandboxed command could have written). Install ${name} system-wide, or put the folder holding it on PATH.`,
  );
}

/** The real path (`.native`: on a case-insensitive disk it also fixes letter case, so `inside` compares like with like). */
function realOrNone(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}

function executableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
