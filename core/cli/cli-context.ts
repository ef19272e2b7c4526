import type { Command } from "commander";
import type { Host, HostOptions } from "../host.js";

/** Global flags every command accepts (architecture section 5). */
export interface GlobalOptions {
  cwd: string;
  json: boolean;
  trust: boolean;
  yes: boolean;
}

/** The process around a command (streams, environment, directory); injectable, so the CLI runs in-process in tests and embedders. */
export interface CliIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Where `--input-file -` and approval answers are read from. */
  stdin: NodeJS.ReadableStream;
  /** True when stdin and stdout are terminals (prompts and live progress allowed). */
  interactive: boolean;
  /** Environment the command sees (`KEEL_HOME`, `KEEL_TRUST`, model keys, what child processes inherit). */
  env: NodeJS.ProcessEnv;
  /** Directory relative paths and `--cwd` resolve against. */
  cwd: string;
  /** Aborting it is Ctrl-C for the running command (in addition to SIGINT). */
  signal?: AbortSignal;
}

/** What a command implementation receives. */
export interface CliContext {
  io: CliIO;
  /** Global options, resolved after parsing. */
  globals(): GlobalOptions;
  /** Creates a fully assembled host (all plugins and runtimes applied, tools registered). Caller closes it. */
  openHost(extra?: Partial<HostOptions>): Promise<Host>;
  /** Opens a host, runs `fn`, always closes the host. */
  withHost<T>(fn: (host: Host) => Promise<T>, extra?: Partial<HostOptions>): Promise<T>;
  /** Prints `value` as JSON with `--json`, else the text `human()` returns (if any). */
  print(value: unknown, human: () => string | undefined): void;
  /** Sets the process exit code (0 success, 1 operation failed, 2 usage/config). */
  setExitCode(code: number): void;
  /** Abort signal fired on Ctrl-C (SIGINT) for long-running commands. */
  signal: AbortSignal;
  /** Does what Ctrl-C does: aborts `signal` (e.g. Ctrl-C read by a prompt in raw mode). */
  interrupt(): void;
  /** Runs another `keel` command line in this process with the same streams (`keel chat`'s `/tools`, …); aborting `signal` is its Ctrl-C. Resolves to its exit code. */
  runCli?(argv: string[], signal?: AbortSignal): Promise<number>;
}

/** A module that adds commands to the program. Keep its imports light: load implementations lazily in actions. */
export type CommandRegistrar = (program: Command, ctx: CliContext) => void;
