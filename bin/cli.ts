import { Command, CommanderError, Option } from "commander";
import { resolve } from "node:path";
import {
  type CliContext,
  type CliIO,
  type GlobalOptions,
  chatArgv,
  errorMessage,
  storageMessage,
  guardCiStream,
  KeelError,
  printedJson,
  registerAgentCommands,
  registerCoreCommands,
  refuseTrustInToolProcess,
  refuseYesInToolProcess,
  registerSetupCommands,
  terminalText,
  watchStopSignals,
} from "../core/cli/index.js";
import type { Host, HostOptions } from "../core/index.js";
import { registerPluginCommands } from "../plugins/cli.js";
import { runtimeCommands } from "../runtimes/cli.js";

/** Runs the CLI with `argv` (without node and script) and resolves to the exit code. Never throws. */
export async function main(argv: string[], given: CliIO = processIO()): Promise<number> {
  let exitCode = 0;
  // In a CI runner's log, text keel prints is never acted on as a logging command (stdout with --json: see printedJson).
  const ciOut = guardCiStream(given.stdout, given.env, () => jsonMode(globals));
  const ciErr = guardCiStream(given.stderr, given.env);
  const io: CliIO = { ...given, stdout: ciOut.stream, stderr: ciErr.stream };
  const controller = new AbortController();
  // Ctrl-C, SIGTERM and SIGHUP (and a terminal or pipe that is gone) cancel the command as Ctrl-C always has: a tool's
  // processes are stopped and a session records its turn as cancelled. A second signal exits at once.
  const stop = watchStopSignals(controller, [given.stdout, given.stderr, given.stdin]);
  const onAbort = () => controller.abort();
  if (io.signal?.aborted) controller.abort();
  io.signal?.addEventListener("abort", onAbort, { once: true });
  // A file size limit (`ulimit -f`) must fail the write (EFBIG, an observation), not kill keel.
  if (process.platform !== "win32" && !process.listeners("SIGXFSZ").includes(ignoreSignal)) process.on("SIGXFSZ", ignoreSignal);
  const program = new Command("keel");
  // commander's usage error (and the hint after it), held until handleError knows whether --json was given.
  const usageError: string[] = [];
  const globals = (): GlobalOptions => {
    const o = program.opts<{ cwd?: string; json?: boolean; trust?: boolean; yes?: boolean }>();
    return { cwd: resolve(io.cwd, o.cwd ?? "."), json: Boolean(o.json), trust: Boolean(o.trust), yes: Boolean(o.yes) };
  };
  const ctx: CliContext = {
    io,
    globals,
    signal: controller.signal,
    interrupt: () => controller.abort(),
    async openHost(extra?: Partial<HostOptions>): Promise<Host> {
      const g = globals();
      // The CLI is built on the library's assembleHost, which `createHost` (`import { createHost } from "keel"`) wraps.
      const { assembleHost } = await import("../lib/create-host.js");
      // No MCP server starts unless the command asks for the ones it needs (`extra.startServers`).
      return assembleHost({
        cwd: g.cwd,
        env: io.env,
        trust: g.trust,
        yes: g.yes,
        startServers: false,
        notice: (line) => io.stderr.write(terminalText(`${line}\n`)),
        // Progress only on a terminal: a script reading stderr gets results and errors, not chatter.
        ...((io.stderr as { isTTY?: boolean }).isTTY ? { progress: (line: string) => io.stderr.write(terminalText(`${line}\n`)) } : {}),
        ...extra,
      });
    },
    async withHost(fn, extra) {
      const host = await ctx.openHost(extra);
      try {
        return await fn(host);
      } finally {
        await host.close();
      }
    },
    print(value, human) {
      if (globals().json) io.stdout.write(printedJson(value, io.env, 2) + "\n");
      else {
        const text = human();
        // Human output may carry text from servers, tools and models: control characters are shown, not interpreted.
        if (text !== undefined && text !== "") io.stdout.write(terminalText(text.endsWith("\n") ? text : text + "\n"));
      }
    },
    setExitCode(code) {
      exitCode = Math.max(exitCode, code);
    },
    // `keel chat`'s /tools, /mcp, …: the same commands, printed to the same terminal
    runCli: (args, signal) => main(args, { ...io, interactive: false, signal }),
  };

  program
    .description("keel — an agent host extended by files dropped into a repository")
    .addOption(new Option("--cwd <dir>", "run as if started in <dir>"))
    .option("--json", "machine-readable JSON output")
    .option("--trust", "trust this workspace's manifests for this invocation (also KEEL_TRUST=1)")
    .option("--yes", "approve every permission prompt for this invocation (deny rules still win)")
    .option("-V, --version", "print keel's version and exit")
    .showHelpAfterError("(run with --help for usage)")
    .configureOutput(output(io, usageError))
    .exitOverride()
    // Before any command: `--trust`, `KEEL_TRUST` and `--yes` are refused inside a process keel started for a tool.
    .hook("preAction", () => {
      refuseTrustInToolProcess(io.env, globals().trust);
      refuseYesInToolProcess(io.env, globals().yes);
    });

  registerCoreCommands(program, ctx);
  registerPluginCommands(program, ctx);
  for (const register of runtimeCommands) register(program, ctx);
  registerAgentCommands(program, ctx);
  registerSetupCommands(program, ctx);
  overrideExits(program.commands, io, usageError);
  // `--version` stops parsing here; the version is read (package.json) only then, in handleError.
  program.on("option:version", () => {
    throw new CommanderError(0, "commander.version", "");
  });

  try {
    await program.parseAsync(chatArgv(argv, io.interactive), { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError && error.code === "commander.version") {
      const version = (await import("./keel-version.js")).keelVersion();
      // `--version` ends parsing where it stands, so a `--json` after it is seen in argv only.
      const json = jsonMode(globals) || argv.slice(0, argv.indexOf("--") === -1 ? undefined : argv.indexOf("--")).includes("--json");
      given.stdout.write(json ? `${printedJson({ version }, io.env, 2)}\n` : `${version}\n`);
    }
    exitCode = handleError(error, io, globals, usageError.join(""));
  } finally {
    stop.dispose();
    io.signal?.removeEventListener("abort", onAbort);
  }
  ciOut.end();
  ciErr.end();
  // A hangup ended the command: 128 + SIGHUP's number, as a shell reports a command the hangup killed.
  return stop.hungUp() ? 129 : exitCode;
}

/** Installed for SIGXFSZ once: the signal is ignored so a write past the size limit fails with EFBIG instead. */
function ignoreSignal(): void {}

/** Every command and nested subcommand reports usage errors to `main` (exit 2) and writes to `io`. */
function overrideExits(commands: readonly Command[], io: CliIO, usageError: string[]): void {
  for (const cmd of commands) {
    cmd.exitOverride().configureOutput(output(io, usageError));
    overrideExits(cmd.commands, io, usageError);
  }
}

/**
 * Where commander writes: `io`'s streams, except its usage error and the hint it writes after one, which go to
 * `usageError` for `handleError` to tell (on stderr, or with --json as keel's own errors: only the object on stdout).
 * Its usage errors start with `keel:` as keel's own errors do (not commander's `error:`).
 */
function output(
  io: CliIO,
  usageError: string[],
): { writeOut(s: string): void; writeErr(s: string): void; outputError(s: string, write: (s: string) => void): void } {
  return {
    writeOut: (s) => io.stdout.write(s),
    writeErr: (s) => (usageError.length ? usageError.push(s) : io.stderr.write(s)),
    outputError: (s) => usageError.push(s.replace(/^error: /, "keel: ")),
  };
}

/** `--json` was given; false when the options cannot be read (a usage error before parsing ended). */
function jsonMode(globals: () => GlobalOptions): boolean {
  try {
    return globals().json;
  } catch {
    return false;
  }
}

/**
 * Tells the error that ended the command and returns the exit code: with --json only as `{"error": {type, message}}` on
 * stdout (keel's own errors and commander's usage errors alike), else as `keel: …` on stderr.
 */
function handleError(error: unknown, io: CliIO, globals: () => GlobalOptions, usageError: string): number {
  const json = jsonMode(globals);
  if (error instanceof CommanderError) {
    if (error.code === "commander.helpDisplayed" || error.code === "commander.version" || error.code === "commander.help") return 0;
    if (error.exitCode === 0) return 0;
    if (json)
      io.stdout.write(printedJson({ error: { type: "UsageError", message: error.message.replace(/^error: /, "").replace(/\n/g, " ") } }, io.env, 2) + "\n");
    else io.stderr.write(usageError);
    return 2;
  }
  const code = error instanceof KeelError ? error.exitCode : 1;
  const name = error instanceof Error ? error.name : "Error";
  // A system error from a full, read-only or unwritable disk says what it means and what to do.
  const message = error instanceof KeelError ? errorMessage(error) : storageMessage(error);
  if (json) io.stdout.write(printedJson({ error: { type: name, message } }, io.env, 2) + "\n");
  else io.stderr.write(terminalText(`keel: ${message}\n`));
  if (!(error instanceof KeelError) && io.env.KEEL_DEBUG) io.stderr.write(String((error as Error)?.stack) + "\n");
  return code;
}

/** The real process: its streams, environment and working directory. */
export function processIO(): CliIO {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    interactive: Boolean(process.stdin.isTTY && process.stdout.isTTY),
    env: process.env,
    cwd: process.cwd(),
  };
}
