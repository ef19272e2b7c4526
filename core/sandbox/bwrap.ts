import { existsSync, lstatSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { ToolError } from "../errors.js";
import { systemProgram } from "../system-program.js";
import { realOrSelf } from "../real-path.js";
import { inside } from "../tools/confine-path.js";
import { pinnedParents } from "./pinned-parents.js";
import type { SandboxSettings } from "./sandbox-config.js";

/** What to run inside the sandbox and where. */
export interface SandboxTarget {
  /** The boundary: writable in `workspace-write` mode (the workspace root or the active worktree). */
  root: string;
  /** Working directory of the command. */
  cwd: string;
  /** The command and its arguments. */
  argv: string[];
  /**
   * Variables for the command inside the sandbox only: a manifest's `env` never acts on the programs that start the
   * sandbox (`/bin/sh`, `bwrap`), which run outside it (`LD_PRELOAD` would load the workspace's code there), nor
   * shows in their command lines: SandboxRunner passes them under inert names (see innerEnv); `bwrapArgs` ignores this field.
   */
  env?: Readonly<Record<string, string>>;
  /** Files and folders the process must not see (keel's secrets, your credential stores, `denyRead`; see hidden-paths.ts): masked when they exist. */
  hidden?: readonly string[];
  /** Folders inside the boundary kept read-only besides its `.git` and `.keel` (`$KEEL_HOME` when the workspace holds it). */
  readOnly?: readonly string[];
  /**
   * The workspace root, when the boundary is a managed worktree inside it: its main checkout stays
   * readable (read-only), as documented, even under a denied folder or the private `/tmp` that holds
   * it — the workspace's hooks run their pinned scripts from there. Not when `hidden` names it.
   */
  workspace?: string;
}

/**
 * The `bwrap` argument list that runs `target.argv` under bubblewrap: the whole file system
 * read-only, `/tmp` private, the boundary (workspace root or active worktree) writable in
 * `workspace-write` mode with its `.git` and `.keel` read-only, `target.hidden` masked, no network when `network` is false, its own PID namespace (so
 * background processes die with the command) and `--die-with-parent`; with `seccompFd`, bwrap loads the
 * seccomp program it reads from that descriptor (see seccompLine) before running the command.
 */
export function bwrapArgs(settings: SandboxSettings, target: SandboxTarget, seccompFd?: number): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
  // Later mounts cover earlier ones. A hidden folder holding the boundary (`denyRead: ["~"]`) is
  // masked first by an empty tmpfs, so the boundary mounted next shows through it; the tmpfs is made
  // read-only once the boundary's mount point exists in it.
  const hidden = target.hidden ?? [];
  const holding = hidden.filter((p) => kindOf(p) === "dir" && inside(p, target.root));
  for (const path of holding) args.push("--tmpfs", path);
  // A worktree's main checkout shows through them read-only (the rest of the file system is read-only already).
  const main = mainCheckout(target, hidden);
  if (main) args.push("--ro-bind", main, main);
  // The boundary (possibly under /tmp) is mounted after the private /tmp, and its .git and .keel
  // read-only over it. Everything else, a main checkout too, stays read-only.
  args.push(settings.mode === "workspace-write" ? "--bind" : "--ro-bind", target.root, target.root);
  const masked = hidden.filter(
    (p) => !holding.includes(p) && (inside(target.root, p) || (main !== undefined && inside(main, p)) || !holding.some((h) => inside(h, p))),
  );
  // Every folder between the writable boundary and what is kept read-only or hidden in it becomes a mount point, so
  // renaming it fails (EBUSY) instead of carrying the mount along and freeing its path (see pinnedParents).
  if (settings.mode === "workspace-write") {
    const real = realOrSelf(target.root);
    const readOnly = [join(real, ".git"), join(real, ".keel"), ...(target.readOnly ?? []).filter((dir) => existsSync(dir))];
    const hiddenDirs = masked.filter((p) => kindOf(p) === "dir");
    for (const dir of pinnedParents(target.root, [...readOnly, ...masked], [...readOnly, ...hiddenDirs])) args.push("--bind", dir, dir);
  }
  for (const dir of [".git", ".keel"]) if (existsSync(join(target.root, dir))) args.push("--ro-bind", join(target.root, dir), join(target.root, dir));
  for (const dir of target.readOnly ?? []) if (existsSync(dir)) args.push("--ro-bind", dir, dir);
  for (const path of holding) args.push("--remount-ro", path);
  // The other hidden paths last, so they cover the boundary too (a `.env` in the workspace). One in a
  // holding folder but outside the boundary (`~/.ssh` with `denyRead: ["~"]`) is hidden already, and
  // could not get a mount point in that read-only tmpfs: every command would fail.
  hide(args, masked);
  if (!settings.network) args.push("--unshare-net");
  if (seccompFd !== undefined) args.push("--seccomp", String(seccompFd));
  args.push("--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent", "--new-session", "--chdir", target.cwd, "--", ...target.argv);
  return args;
}

/** The main checkout a worktree boundary lies in (`target.workspace`), unless it is the boundary itself or a hidden path holds the boundary from inside it (`denyRead` naming the workspace). */
function mainCheckout(target: SandboxTarget, hidden: readonly string[]): string | undefined {
  const ws = target.workspace;
  if (ws === undefined || ws === target.root || !inside(ws, target.root)) return undefined;
  return hidden.some((h) => inside(ws, h) && inside(h, target.root)) ? undefined : ws;
}

/**
 * Before a `workspace-write` sandbox starts: creates an empty `.git` and `.keel` folder at the
 * boundary where none exists, so `bwrapArgs` mounts them read-only too. Otherwise a sandboxed
 * command could create `<root>/.git` (a repository with hooks or `core.fsmonitor`) that keel's own
 * git calls, which run unsandboxed in the workspace, would then use. An empty `.git` folder is no
 * repository: git looks past it to the enclosing one. Throws ToolError(`precondition_failed`) when a folder cannot be made.
 */
export function reserveProtectedDirs(settings: SandboxSettings, root: string): void {
  if (settings.mode !== "workspace-write") return;
  for (const dir of [".git", ".keel"]) {
    try {
      mkdirSync(join(root, dir));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST")
        throw new ToolError(
          `The sandbox cannot keep ${dir} read-only: creating ${join(root, dir)} failed (${(error as Error).message}). Nothing was run; make the workspace writable or turn the sandbox to "read-only".`,
          "precondition_failed",
        );
    }
  }
}

/** The descriptor bwrap reads the seccomp program from, in a spawn line made by seccompLine. */
export const SECCOMP_FD = 3;

/**
 * The spawn line that runs `bwrap` with `args` and the file `filter` open as descriptor SECCOMP_FD: a
 * shell that opens it and execs bwrap in its place (same process: signals and `--die-with-parent` work as
 * before). For spawners that cannot pass extra descriptors (the MCP SDK's stdio transport).
 */
export function seccompLine(filter: string, bwrap: string, args: readonly string[]): { file: string; args: string[] } {
  return { file: "/bin/sh", args: ["-c", `exec "$@" ${SECCOMP_FD}<"$0"`, filter, bwrap, ...args] };
}

/**
 * Why the sandbox cannot be used on this machine, or undefined when it can (checked by running `bwrap` once).
 * `bwrap` is looked up outside `writable` (the workspace): see systemProgram. With `filter` (the path of
 * the seccomp program, see seccompLine), the check runs under it, so a filter bwrap cannot load makes the
 * sandbox unavailable instead of failing every command with bwrap's own error.
 */
export async function sandboxUnavailable(
  env: NodeJS.ProcessEnv,
  signal?: AbortSignal,
  writable: readonly string[] = [],
  filter?: string,
): Promise<string | undefined> {
  if (process.platform !== "linux") return `the sandbox uses bubblewrap, which runs on Linux only (this is ${process.platform}; macOS is not supported yet)`;
  const bwrap = systemProgram("bwrap", env, writable);
  if (!bwrap)
    return "bubblewrap (`bwrap`) is not installed in a PATH folder outside the workspace (keel never runs one from the workspace or a relative PATH entry, which a sandboxed command could have written): install it (Debian/Ubuntu: apt-get install bubblewrap)";
  const { execa } = await import("execa");
  const run = (line: { file: string; args: string[] }) =>
    execa(line.file, line.args, { env, extendEnv: false, reject: false, stdin: "ignore", timeout: 10_000, cancelSignal: signal });
  const plain = ["--ro-bind", "/", "/", "--unshare-pid", "--die-with-parent"];
  if (filter) {
    const filtered = await run(seccompLine(filter, bwrap, [...plain, "--seccomp", String(SECCOMP_FD), "--", "true"]));
    if (filtered.exitCode === 0) return undefined;
    // Told apart from bwrap not working at all by the probe without the filter.
    if ((await run({ file: bwrap, args: [...plain, "--", "true"] })).exitCode === 0)
      return `bubblewrap cannot load the seccomp filter that keeps sandboxed commands off Unix sockets (${firstLine(filtered)}): ${UNIX_SOCKETS_WAY_OUT}`;
  }
  const probe = await run({ file: bwrap, args: [...plain, "--", "true"] });
  if (probe.exitCode === 0) return undefined;
  const code = (probe as { code?: string }).code;
  if (code === "ENOENT" || /ENOENT/.test(String(probe.message)))
    return "bubblewrap (`bwrap`) is not installed: install it (Debian/Ubuntu: apt-get install bubblewrap)";
  return `bubblewrap cannot create its namespaces here (${firstLine(probe)}): enable unprivileged user namespaces or run where they are allowed`;
}

/** What to do when the seccomp filter cannot be used, for messages. */
export const UNIX_SOCKETS_WAY_OUT =
  'let sandboxed commands use Unix sockets ("sandbox": {"unixSockets": true} in $KEEL_HOME/config.json; add "network": false to keep your session\'s abstract sockets out of reach then)';

/** The first line of what a failed probe said. */
function firstLine(result: { stderr?: unknown; shortMessage?: string }): string {
  return String(result.stderr || result.shortMessage)
    .trim()
    .split("\n")[0]!;
}

/** Masks each path that exists: a folder becomes an empty read-only one, anything else reads as empty. */
function hide(args: string[], paths: readonly string[]): void {
  for (const path of paths) {
    const kind = kindOf(path);
    if (kind === "dir") args.push("--tmpfs", path, "--remount-ro", path);
    else if (kind === "other") args.push("--ro-bind", "/dev/null", path);
  }
}

/** "dir", "other" (anything else that exists) or undefined (nothing there). */
function kindOf(path: string): "dir" | "other" | undefined {
  try {
    return lstatSync(path).isDirectory() ? "dir" : "other";
  } catch {
    return undefined;
  }
}
