import { execa } from "execa";
import { PassThrough, Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { main } from "../../bin/cli.js";

/** Path of the keel executable (the built CLI; vitest's globalSetup builds it once per run). */
export const KEEL_BIN = fileURLToPath(new URL("../../bin/keel.js", import.meta.url));

/** Result of one CLI run. */
export interface CliRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (throws with the output when it is not JSON). */
  json<T = any>(): T;
}

/** How to run one command. */
export interface RunOptions {
  cwd: string;
  /** The whole environment the command sees (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Text on stdin (default: an empty, closed stdin). */
  input?: string;
  /** Aborting it is Ctrl-C (in-process runs). */
  signal?: AbortSignal;
  /**
   * Runs interactively, as on a terminal: stdin is this stream (from `ttyInput()`: write answers
   * into it) and stderr, where prompts go, reports itself as a TTY. In-process runs only.
   */
  terminal?: PassThrough & { isTTY: true };
  /** Called with everything written to stderr so far, on each write (to wait for a prompt). */
  onStderr?: (text: string) => void;
  /** Safety net for whole-process runs only (default 120 s); never the thing a test asserts. */
  timeout?: number;
}

/**
 * Runs `keel ...args` in this process through `main(argv, io)`: the same code as the executable,
 * with injected streams, environment and working directory, non-interactive (stdin is not a TTY).
 * Use `runKeelProcess` only where the process itself is under test (start-up, signals, exit, crashes).
 */
export async function runKeel(args: string[], opts: RunOptions): Promise<CliRun> {
  // Each run listens for SIGINT while it lasts; tests may run many commands at once.
  if (process.getMaxListeners() < 100) process.setMaxListeners(100);
  const stdout = new TextSink();
  const stderr = Object.assign(new TextSink(opts.onStderr), { isTTY: opts.terminal !== undefined });
  const stdin = opts.terminal ?? Readable.from(opts.input === undefined ? [] : [Buffer.from(opts.input)]);
  const exitCode = await main(args, {
    stdout,
    stderr,
    stdin,
    interactive: opts.terminal !== undefined,
    env: opts.env ?? process.env,
    cwd: opts.cwd,
    signal: opts.signal,
  });
  // As from a process run (execa): one final newline is not part of the text.
  return cliRun(args, exitCode, stripFinalNewline(stdout.text), stripFinalNewline(stderr.text));
}

/** `keel --yes --json call TOOL --input INPUT` in workspace `ws` (in this process, as runKeel), its JSON output parsed. */
export async function callJson(ws: { root: string; env: NodeJS.ProcessEnv }, tool: string, input: object) {
  return (await runKeel(["--yes", "--json", "call", tool, "--input", JSON.stringify(input)], { cwd: ws.root, env: ws.env })).json();
}

/** Runs `keel ...args` as a real process (`node bin/keel.js`, built dist/) with stdin closed unless `input` is given. */
export async function runKeelProcess(args: string[], opts: RunOptions): Promise<CliRun> {
  const r = await execa(process.execPath, [KEEL_BIN, ...args], {
    cwd: opts.cwd,
    env: opts.env,
    extendEnv: opts.env === undefined,
    input: opts.input,
    stdin: opts.input === undefined ? "ignore" : undefined,
    reject: false,
    cancelSignal: opts.signal,
    timeout: opts.timeout ?? 120_000,
  });
  return cliRun(args, r.exitCode ?? -1, String(r.stdout ?? ""), String(r.stderr ?? ""));
}

/**
 * Starts `keel ...args` as a real process in `ws` (its root and environment only, stdin closed) and returns it
 * running, for tests that signal it or read its output as it comes; it is killed after 100 s at most.
 */
export function startKeelProcess(args: string[], ws: { root: string; env: NodeJS.ProcessEnv }) {
  return execa(process.execPath, [KEEL_BIN, ...args], { cwd: ws.root, env: ws.env, extendEnv: false, reject: false, stdin: "ignore", timeout: 100_000 });
}

/** A terminal-like input for in-process interactive runs: write answers into it. */
export function ttyInput(): PassThrough & { isTTY: true } {
  return Object.assign(new PassThrough(), { isTTY: true as const });
}

function stripFinalNewline(text: string): string {
  return text.endsWith("\r\n") ? text.slice(0, -2) : text.endsWith("\n") ? text.slice(0, -1) : text;
}

function cliRun(args: string[], exitCode: number, stdout: string, stderr: string): CliRun {
  return {
    exitCode,
    stdout,
    stderr,
    json() {
      try {
        return JSON.parse(stdout);
      } catch {
        throw new Error(`keel ${args.join(" ")} did not print JSON.\nexit ${exitCode}\nstdout: ${stdout}\nstderr: ${stderr}`);
      }
    },
  };
}

/** Collects what a command writes. */
class TextSink extends Writable {
  private chunks: Buffer[] = [];

  constructor(private readonly onWrite?: (text: string) => void) {
    super();
  }

  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: (error?: Error | null) => void): void {
    this.chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
    this.onWrite?.(this.text);
    done();
  }

  /** Everything written so far, as UTF-8. */
  get text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}
