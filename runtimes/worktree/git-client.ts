import { delimiter, dirname, isAbsolute, sep } from "node:path";
import type { SimpleGit } from "simple-git";
import { requireSystemProgram, systemEnv, withoutRepoLocation } from "../../core/index.js";
import { repoProgramOverrides } from "./repo-program-config.js";

/** Options for a git client bound to one directory. */
export interface GitClientOptions {
  /** The environment keel was given (the host's `env`): git is looked up on its PATH and runs with it (PATH cut as `systemEnv` does). */
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** Extra `-c key=value` settings (e.g. a fallback identity). */
  config?: string[];
}

/**
 * Settings every keel git call runs with. keel's git runs outside the OS sandbox, in folders a
 * sandboxed command can write, so it runs no git hooks (`core.hooksPath` may name a workspace
 * folder, husky's `.husky/_`, where a command would write the hook keel's commit or merge runs) and
 * no file-system monitor (`core.fsmonitor` is a command line status, diff, add and merge run; a command
 * can make `sub/.git` with one, and keel started in `sub/` uses that repository). The other
 * settings naming a program these commands run are in repo-program-config.ts.
 */
export const KEEL_GIT_CONFIG: readonly string[] = ["core.hooksPath=/dev/null", "core.fsmonitor=false"];

/** simple-git's checks that your environment's variables (not keel's arguments) would trip. */
const ENVIRONMENT_SETTINGS = {
  allowUnsafeAskPass: true,
  allowUnsafeConfigEnvCount: true,
  allowUnsafeConfigPaths: true,
  allowUnsafeDiffExternal: true,
  allowUnsafeEditor: true,
  allowUnsafeGitProxy: true,
  allowUnsafePager: true,
  allowUnsafeSshCommand: true,
  allowUnsafeTemplateDir: true,
} as const;

/**
 * A simple-git client for `dir` (simple-git is imported lazily, on first use), with
 * `KEEL_GIT_CONFIG` and the `repoProgramOverrides` of `dir`'s repository, and `PATH` cut as `systemEnv` does. The signal aborts running git processes. Every non-zero exit rejects
 * (simple-git's default ignores a failure that printed nothing on stderr, e.g. a conflicting merge).
 */
export async function gitAt(dir: string, opts: GitClientOptions): Promise<SimpleGit> {
  const writable = gitWritable(dir);
  const found = requireSystemProgram("git", opts.env, writable, "keel's git");
  // What git starts in turn (gpg for a signed commit, a git-lfs filter) is looked up outside the workspace too.
  // The repository is the one `dir` is in: never one your environment names (`GIT_DIR`, `GIT_WORK_TREE`, …).
  const env = withoutRepoLocation(systemEnv(opts.env, writable));
  // simple-git refuses a `binary` path holding a space, `+` or `@` (a git in `~/my tools/`): git is named
  // bare, with the folder it was found in first on PATH, so the git run is the one systemProgram chose.
  if (isAbsolute(found)) env.PATH = [dirname(found), env.PATH].filter(Boolean).join(delimiter);
  const overrides = await repoProgramOverrides(found, dir, env, opts.signal);
  const { simpleGit } = await import("simple-git");
  const git = simpleGit({
    baseDir: dir,
    binary: "git",
    abort: opts.signal,
    config: [...KEEL_GIT_CONFIG, ...overrides, ...(opts.config ?? [])],
    // For keel's own settings: KEEL_GIT_CONFIG's `core.hooksPath` and `core.fsmonitor`, and repoProgramOverrides'
    // filter, merge driver and gpg programs (neutral, or the value of your own config). The others: simple-git
    // checks an environment passed to it (below: your own, with PATH cut) for EDITOR, PAGER, GIT_SSH_COMMAND,
    // GIT_CONFIG_GLOBAL, …, which git inherited unchecked before; keel's own arguments set none of them.
    unsafe: {
      allowUnsafeHooksPath: true,
      allowUnsafeFsMonitor: true,
      allowUnsafeFilter: true,
      allowUnsafeMergeDriver: true,
      allowUnsafeGpgProgram: true,
      ...ENVIRONMENT_SETTINGS,
    },
    maxConcurrentProcesses: 1,
    errors: (error, result) => {
      if (error) return error;
      if (result.exitCode !== 0) return Buffer.concat([...result.stdOut, ...result.stdErr]);
      return undefined;
    },
  });
  return git.env(env as Record<string, string>);
}

/**
 * Where keel never looks up its `git` (see systemProgram): `dir` and, for a managed worktree
 * (`<workspace>/.keel/worktrees/NAME`), the workspace holding it.
 */
function gitWritable(dir: string): string[] {
  const at = dir.indexOf(`${sep}.keel${sep}worktrees${sep}`);
  return at < 0 ? [dir] : [dir, dir.slice(0, at)];
}

/** A client whose commits work even without a configured identity (falls back to `keel <keel@localhost>`), with `config` settings besides. */
export async function committingGitAt(dir: string, env: NodeJS.ProcessEnv, signal?: AbortSignal, config: string[] = []): Promise<SimpleGit> {
  const probe = await gitAt(dir, { env, signal });
  const settings = [...config];
  if (!(await configValue(probe, "user.name"))) settings.push("user.name=keel");
  if (!(await configValue(probe, "user.email"))) settings.push("user.email=keel@localhost");
  return settings.length ? gitAt(dir, { env, signal, config: settings }) : probe;
}

/** The full ref of branch `name`: as a revision, a bare `keel/x` or `main` means a tag of that name first, which a repository can ship. */
export function branchRef(name: string): string {
  return `refs/heads/${name}`;
}

/** The branch HEAD is on (`main`), or undefined on a detached HEAD. Never `heads/main`, as `rev-parse --abbrev-ref` says when a tag shares the name. */
export async function currentBranch(git: SimpleGit): Promise<string | undefined> {
  try {
    const ref = (await git.raw(["symbolic-ref", "-q", "HEAD"])).trim();
    return ref.startsWith("refs/heads/") ? ref.slice("refs/heads/".length) : undefined;
  } catch {
    return undefined;
  }
}

/** `git rev-parse --verify -q <ref>`: the commit id, or undefined when the ref does not exist. Never throws for a missing ref. */
export async function resolveRef(git: SimpleGit, ref: string): Promise<string | undefined> {
  try {
    const out = (await git.raw(["rev-parse", "--verify", "-q", `${ref}^{commit}`])).trim();
    return out || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Keeps `git status` and `git diff` out of submodules' working trees: by default git runs
 * `git status` inside each checked-out submodule (`sub/.git`, which a sandboxed command can write),
 * and that runs the submodule's `core.fsmonitor` and filters, unsandboxed. A submodule whose commit
 * moved still shows. On the command line, since a committed `.gitmodules` (`ignore = none`)
 * overrides the config setting.
 */
export const NO_SUBMODULE_STATUS = "--ignore-submodules=dirty";

/** Porcelain status lines (`XY path`), including untracked files unless `untracked` is false. Never looks inside submodules. */
export async function statusLines(git: SimpleGit, untracked = true): Promise<string[]> {
  const out = await git.raw(["status", "--porcelain=v1", NO_SUBMODULE_STATUS, untracked ? "--untracked-files=all" : "--untracked-files=no"]);
  return out.split("\n").filter((l) => l.trim() !== "");
}

/**
 * Stages everything and commits it (no hooks run); returns true when a commit was made. Submodules
 * are staged by `update-index`, which reads their checked-out commit without running git in them:
 * `git add -A` runs `git status` inside each one whose commit did not move (see NO_SUBMODULE_STATUS),
 * whatever `.gitmodules` or the config say.
 */
export async function commitAll(git: SimpleGit, message: string): Promise<boolean> {
  const submodules = await submodulePaths(git);
  await git.raw(["add", "-A", "--", ".", ...submodules.map((p) => `:(exclude,literal)${p}`)]);
  if (submodules.length) await git.raw(["update-index", "--remove", "--", ...submodules]);
  const staged = (await git.raw(["diff", "--cached", "--name-only"])).trim();
  if (!staged) return false;
  await git.raw(["commit", "-q", "--no-verify", "-m", message]);
  return true;
}

/** Paths of the submodules (gitlinks) in the index, relative to the client's directory. Reads only the index. */
async function submodulePaths(git: SimpleGit): Promise<string[]> {
  const entries = (await git.raw(["ls-files", "--stage", "-z"])).split("\0").filter((e) => e.startsWith("160000 "));
  return [...new Set(entries.map((e) => e.slice(e.indexOf("\t") + 1)))];
}

/** `git config --get key`, or undefined when unset. Never throws for a missing key. */
export async function configValue(git: SimpleGit, key: string): Promise<string | undefined> {
  try {
    return (await git.raw(["config", "--get", key])).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Paths of every worktree git links to the repository (`git worktree list --porcelain`), main checkout first. */
export async function worktreePaths(git: SimpleGit): Promise<string[]> {
  const out = await git.raw(["worktree", "list", "--porcelain"]);
  return out
    .split("\n")
    .filter((l) => l.startsWith("worktree "))
    .map((l) => l.slice("worktree ".length));
}
