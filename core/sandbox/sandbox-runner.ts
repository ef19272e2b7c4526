import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { endianness } from "node:os";
import { ToolError } from "../errors.js";
import { realOrSelf } from "../real-path.js";
import { PRIVATE_DIR_MODE } from "../state/own-path.js";
import { inside } from "../tools/confine-path.js";
import { systemProgram } from "../system-program.js";
import { bwrapArgs, reserveProtectedDirs, SECCOMP_FD, seccompLine, sandboxUnavailable, type SandboxTarget, UNIX_SOCKETS_WAY_OUT } from "./bwrap.js";
import { deniedPaths, hiddenPaths } from "./hidden-paths.js";
import { linkInside } from "./link-inside.js";
import { innerEnv } from "./inner-env.js";
import { hiddenNeed } from "./needed-paths.js";
import { type SandboxSettings, unixSocketsBlocked } from "./sandbox-config.js";
import { SeccompFilterFile } from "./seccomp-file.js";
import { filterUnsupported } from "./seccomp-filter.js";

/** A command line ready to spawn: the program and its arguments. */
export interface SpawnLine {
  file: string;
  args: string[];
  /** Variables the spawned process's environment needs besides the caller's (a sandboxed command's own `env`, under inert names: see innerEnv). */
  env?: Record<string, string>;
}

/**
 * Runs commands under the configured sandbox (one per host). Checks once, on first use, that
 * bubblewrap works; when it does not, every sandboxed command is refused — never run unsandboxed.
 */
export class SandboxRunner {
  private check: Promise<string | undefined> | undefined;
  /** Folders of code keel runs in its own process (a trusted workspace's code plugins), kept read-only inside the boundary. */
  private readonly keptCode = new Set<string>();
  /** The seccomp filter keeping sandboxed commands off Unix sockets, made on first use. */
  private readonly filter = new SeccompFilterFile(() => this.writable());

  constructor(
    readonly settings: SandboxSettings,
    private readonly env: NodeJS.ProcessEnv,
    /** keel's secrets under `$KEEL_HOME`, which no sandboxed process may read (with your credential stores and `denyRead`, see hidden-paths.ts). */
    private readonly hidden: readonly string[] = [],
    /** The workspace root: relative `denyRead` paths are hidden under it as well as under a sandbox's boundary (an active worktree). */
    private readonly workspaceRoot?: string,
    /** `$KEEL_HOME`: kept read-only when a writable boundary holds it (a plugin written there would be yours, and run unsandboxed). */
    private readonly keelHome?: string,
  ) {}

  /**
   * Keeps `dir` (a trusted workspace code plugin's folder, which keel imports unsandboxed) read-only
   * inside every later sandbox whose boundary holds it: a sandboxed command must not rewrite code
   * keel then runs outside the sandbox (the folder is pinned only when keel starts).
   */
  keepReadOnly(dir: string): void {
    this.keptCode.add(realOrSelf(dir));
  }

  /** Folders a sandboxed command may have written, where keel never looks up `bwrap` (see systemProgram). */
  private writable(): string[] {
    return this.workspaceRoot ? [this.workspaceRoot] : [];
  }

  /** True when commands run sandboxed. */
  get enabled(): boolean {
    return this.settings.mode !== "off";
  }

  /** Why the sandbox is configured but cannot run here, or undefined (also when it is off). */
  async unavailable(signal?: AbortSignal): Promise<string | undefined> {
    if (!this.enabled) return undefined;
    return this.probe(signal);
  }

  /**
   * Why the sandbox, as configured (`workspace-write` when it is off), cannot run here — bubblewrap missing or
   * unable to make namespaces, or the seccomp filter the settings call for unusable — or undefined. Checked once.
   */
  probe(signal?: AbortSignal): Promise<string | undefined> {
    return (this.check ??= this.runProbe(signal));
  }

  /** True when sandboxed processes are kept off Unix sockets (unless `unixSockets` allows them). */
  get unixSocketsBlocked(): boolean {
    return unixSocketsBlocked(this.settings);
  }

  /** Releases the filter's file descriptor. Never throws. */
  close(): void {
    this.filter.close();
  }

  private async runProbe(signal?: AbortSignal): Promise<string | undefined> {
    if (process.platform !== "linux" || !unixSocketsBlocked(this.settings)) return sandboxUnavailable(this.env, signal, this.writable());
    const unsupported = filterUnsupported(process.arch, endianness());
    if (unsupported) return `${unsupported}: ${UNIX_SOCKETS_WAY_OUT}`;
    let filter: string;
    try {
      filter = this.filter.path();
    } catch (error) {
      return `${(error as Error).message.replace(/\.$/, "")}: ${UNIX_SOCKETS_WAY_OUT}`;
    }
    return sandboxUnavailable(this.env, signal, this.writable(), filter);
  }

  /** True when hook commands and stdio MCP servers the workspace brings run sandboxed (`sandbox.workspaceCommands`). */
  get workspaceCommands(): boolean {
    return this.settings.workspaceCommands;
  }

  /**
   * The spawn line for a process that asked for the sandbox itself (an MCP server with `sandbox:
   * true`): under the configured settings, or `workspace-write` (network as configured) when the
   * sandbox is off. Throws ToolError(`precondition_failed`) when bubblewrap cannot run.
   */
  wrapServer(target: SandboxTarget, what: string, signal?: AbortSignal): Promise<SpawnLine> {
    return this.wrapWith(this.ownSettings(), target, what, signal, 'or no "sandbox": true on the MCP server');
  }

  /**
   * The spawn line for a hook command or stdio MCP server the workspace brings, while
   * `workspaceCommands` is on: sandboxed as `wrapServer` does. Throws ToolError(`precondition_failed`)
   * when bubblewrap cannot run (never runs it unsandboxed).
   */
  wrapWorkspaceCommand(target: SandboxTarget, what: string, signal?: AbortSignal): Promise<SpawnLine> {
    return this.wrapWith(
      this.ownSettings(),
      target,
      what,
      signal,
      'or let what workspaces bring run unsandboxed ("sandbox": {"workspaceCommands": false} in $KEEL_HOME/config.json)',
    );
  }

  /** The configured settings, or `workspace-write` (network as configured) when the sandbox is off. */
  private ownSettings(): SandboxSettings {
    return this.enabled ? this.settings : { ...this.settings, mode: "workspace-write" };
  }

  /** The spawn line for `target`: bwrap around it when the sandbox is on. Throws ToolError(`precondition_failed`) when it is on but unavailable. */
  async wrap(target: SandboxTarget, what: string, signal?: AbortSignal): Promise<SpawnLine> {
    if (!this.enabled) return { file: target.argv[0]!, args: target.argv.slice(1) };
    return this.wrapWith(this.settings, target, what, signal);
  }

  private async wrapWith(settings: SandboxSettings, target: SandboxTarget, what: string, signal?: AbortSignal, orElse?: string): Promise<SpawnLine> {
    const why = await this.probe(signal);
    if (why)
      throw new ToolError(
        `The sandbox (${settings.mode}) cannot run: ${why}. ${what} was not run: keel never runs it unsandboxed. Fix the sandbox, or turn it off ("sandbox": "off" in your config${orElse ? `, ${orElse}` : ""}).`,
        "precondition_failed",
      );
    const hidden = hiddenPaths(settings, target.root, this.hidden, this.env, this.workspaceRoot);
    // Hiding "/" leaves nothing to run ("bwrap: execvp bash: No such file or directory" would send you looking for bash).
    if (hidden.includes("/"))
      throw new ToolError(
        `The sandbox cannot run: sandbox.denyRead hides / (the whole file system: no program would be left to run). ${what} was not run. Remove "/" (or a relative path leading there, such as "../..") from denyRead in your config or the workspace's, and list the folders to hide instead.`,
        "precondition_failed",
      );
    // Hiding /usr (or where the program lives) gives bwrap's "execvp …: No such file or directory": name the cause instead.
    const needed = hiddenNeed(hidden, target.argv[0]!, this.env);
    if (needed)
      throw new ToolError(
        `The sandbox cannot run ${target.argv[0]}: sandbox.denyRead hides ${needed}, which holds the program or the system libraries it needs. ${what} was not run. Remove ${JSON.stringify(needed)} from denyRead in your config or the workspace's, and hide the folders inside it that hold secrets instead.`,
        "precondition_failed",
      );
    // A link on the way to a denyRead path that a command can replace (`secrets → s1`, re-pointed at a decoy) would move the hiding off the secret for the next command.
    if (settings.mode === "workspace-write") {
      const boundary = realOrSelf(target.root);
      for (const path of deniedPaths(settings.denyRead, target.root, this.env, this.workspaceRoot)) {
        const link = linkInside(boundary, path);
        if (link)
          throw new ToolError(
            `The sandbox cannot keep ${path} (sandbox.denyRead) hidden: its path goes through the link ${link} inside the workspace, which a sandboxed command could re-point, leaving what it leads to now (${realOrSelf(path)}) readable to the next command. ${what} was not run. Name the real path in denyRead instead, or replace the link with what it leads to.`,
            "precondition_failed",
          );
      }
    }
    reserveProtectedDirs(settings, target.root);
    // Only folders inside the boundary: one elsewhere is read-only already, and one under the host's /tmp must stay unseen.
    const root = realOrSelf(target.root);
    const code = [...this.keptCode].filter((dir) => dir !== root && inside(root, dir));
    const bwrap = systemProgram("bwrap", this.env, [...this.writable(), target.root]);
    if (!bwrap)
      throw new ToolError(
        `The sandbox cannot run: \`bwrap\` is no longer on PATH outside the workspace. ${what} was not run: keel never runs it unsandboxed.`,
        "precondition_failed",
      );
    // The command's own variables come in under inert names and are set back inside (see innerEnv): `outer` is the spawner's, `argv` bwrap's.
    const { env: own, ...rest } = target;
    const inner = innerEnv(own ?? {}, target.argv);
    const full = {
      ...rest,
      argv: inner.argv,
      hidden,
      readOnly: [...this.keptKeelHome(settings, target.root), ...code],
      ...(this.workspaceRoot ? { workspace: this.workspaceRoot } : {}),
    };
    const env = Object.keys(inner.outer).length ? { env: inner.outer } : {};
    if (!unixSocketsBlocked(settings)) return { file: bwrap, args: bwrapArgs(settings, full), ...env };
    // The probe made the filter: keel's file descriptor, reopened by the shell that becomes bwrap.
    return { ...seccompLine(this.filter.path(), bwrap, bwrapArgs(settings, full, SECCOMP_FD)), ...env };
  }

  /**
   * `$KEEL_HOME` when a `workspace-write` boundary holds it (`KEEL_HOME` set inside a project, keel run in a home
   * holding `~/.config/keel`), made first if missing: a command writing there would add a plugin, hook or trust of
   * yours, which keel runs unsandboxed. Throws ToolError(`precondition_failed`) when it cannot be made, or when the
   * boundary lies inside `$KEEL_HOME` (failing closed: all of it would be yours).
   */
  private keptKeelHome(settings: SandboxSettings, root: string): string[] {
    if (!this.keelHome || settings.mode !== "workspace-write") return [];
    // A boundary inside $KEEL_HOME (a user-level plugin's folder worked on in place) is all yours: writable, it would let a command change what keel runs as you.
    if (inside(realOrSelf(this.keelHome), realOrSelf(root)) && realOrSelf(root) !== realOrSelf(this.keelHome))
      throw new ToolError(
        `The sandbox cannot let commands write here: the workspace ${root} lies inside $KEEL_HOME (${this.keelHome}), whose plugins, skills and config keel runs as yours, unsandboxed. Nothing was run; work in a copy outside $KEEL_HOME, or set the sandbox to "read-only".`,
        "precondition_failed",
      );
    if (!inside(realOrSelf(root), realOrSelf(this.keelHome))) return [];
    try {
      mkdirSync(this.keelHome, { recursive: true, mode: PRIVATE_DIR_MODE });
    } catch (error) {
      throw new ToolError(
        `The sandbox cannot keep $KEEL_HOME (${this.keelHome}) read-only: creating it failed (${(error as Error).message}). Nothing was run; set KEEL_HOME outside the workspace.`,
        "precondition_failed",
      );
    }
    // A link on the way that lies in the boundary could be replaced by a folder holding a config of the command's making.
    const link = linkInside(realOrSelf(root), resolve(this.keelHome));
    if (link)
      throw new ToolError(
        `The sandbox cannot keep $KEEL_HOME (${this.keelHome}) read-only: its path goes through the link ${link} inside the workspace, which a sandboxed command could replace. Nothing was run; set KEEL_HOME to its real path (${realOrSelf(this.keelHome)}), or outside the workspace.`,
        "precondition_failed",
      );
    return [realOrSelf(this.keelHome)];
  }
}
