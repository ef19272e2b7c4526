import { execFileSync } from "node:child_process";
import { homedir } from "node:os";
import { isAbsolute, join, resolve, sep } from "node:path";
import { withoutRepoLocation } from "./git-repo-env.js";
import { realOrSelf } from "./real-path.js";
import { systemEnv, systemProgram } from "./system-program.js";

/** Scopes git itself reads `safe.directory` from: never a repository's own config, which its owner writes. */
const SCOPES = new Set(["system", "global", "command"]);

/**
 * The `safe.directory` entries of your git configuration (system, global, and `-c`/`GIT_CONFIG_COUNT`
 * ones: the scopes git itself honours; a repository's own config is skipped), in order, an empty value
 * clearing the ones before it as in git. Empty when git is missing or says nothing. The git run is looked up as
 * `systemProgram` does, never inside one of `writable` (every folder that may be the workspace root). Runs
 * `git config` synchronously, so callers ask only when another user's folder is in the way (the
 * rare path: nothing runs when every folder is yours). `node:child_process` rather than execa:
 * workspace resolution is synchronous and runs on every command, before execa is loaded. Never throws.
 */
export function gitSafeDirectories(env: NodeJS.ProcessEnv, writable: readonly string[]): string[] {
  // Never a git found in a folder that may be the workspace (`npx keel` puts its node_modules/.bin first on PATH):
  // one planted there by the other user or a sandboxed command ran, unsandboxed, before the folder was refused.
  const git = systemProgram("git", env, writable);
  if (git === undefined) return [];
  let out: string;
  try {
    out = execFileSync(git, ["config", "--show-scope", "--get-all", "safe.directory"], {
      cwd: "/",
      env: { ...withoutRepoLocation(systemEnv(env, writable)), GIT_CEILING_DIRECTORIES: "/" },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 5000,
      maxBuffer: 1 << 20,
    });
  } catch {
    return [];
  }
  const entries: string[] = [];
  for (const line of out.split("\n")) {
    const tab = line.indexOf("\t");
    if (tab < 0 || !SCOPES.has(line.slice(0, tab))) continue;
    const value = line.slice(tab + 1);
    if (value === "") entries.length = 0;
    else entries.push(value);
  }
  return entries;
}

/**
 * True when `entries` (see gitSafeDirectories) let git work in `dir` (a real path) although another
 * user owns it: `*`, the folder itself, or a `FOLDER/*` entry above it (git 2.46+), `~/` expanded.
 */
export function safeByGit(dir: string, entries: readonly string[], env: NodeJS.ProcessEnv): boolean {
  for (const raw of entries) {
    if (raw === "*") return true;
    const value = raw.startsWith("~/") ? join(env.HOME || homedir(), raw.slice(2)) : raw;
    const prefix = value.endsWith("/*");
    const path = prefix ? value.slice(0, -2) : value;
    if (!isAbsolute(path)) continue;
    for (const candidate of new Set([resolve(path), realOrSelf(resolve(path))])) {
      if (candidate === dir || (prefix && dir.startsWith(candidate.endsWith(sep) ? candidate : candidate + sep))) return true;
    }
  }
  return false;
}
