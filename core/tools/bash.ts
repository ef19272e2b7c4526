import { stat } from "node:fs/promises";
import { ToolError } from "../errors.js";
import { truncateMiddle } from "../truncate.js";
import { defineTool } from "../define-tool.js";
import type { BinaryPart, ToolDefinition } from "../types.js";
import { confinePath, displayPath } from "./confine-path.js";
import { CALL_MARK, callMarkValue, killMarked, newCallMark } from "./call-mark.js";
import { commandEnv } from "../command-env.js";

/** Run time of one bash command when `timeout_ms` is not given (ms). */
export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
/** Largest `timeout_ms` bash accepts (ms). */
export const BASH_MAX_TIMEOUT_MS = 600_000;
/** Bytes of stdout (and of stderr) kept from one command; past it the command is stopped and the observation says `truncated: true`. */
export const BASH_MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

/** Structured result of a bash call (`data` of the observation). */
export interface BashData {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  signal?: string;
  /** Streams whose output was not text (NUL bytes or invalid UTF-8); their bytes are kept as artifacts, not in `stdout`/`stderr`. */
  binary?: ("stdout" | "stderr")[];
}

/**
 * `bash`: runs `bash -c command` in a folder of the workspace with its own timeout. The command
 * runs in its own process group, which is killed when the command ends, times out or is cancelled,
 * so no child lingers. A non-zero exit is an observation (`ok: false`, `execution_failed`), not a throw.
 * Binary stdout/stderr (NUL bytes or invalid UTF-8) is returned byte-exact as `binary` parts (artifacts) with a note in content.
 * With `sandbox` configured it runs under bubblewrap (see core/sandbox), or not at all.
 */
export function bashTool(): ToolDefinition {
  const inputSchema = {
    type: "object",
    properties: {
      command: { type: "string", minLength: 1, description: "The command line, run with bash -c" },
      cwd: { type: "string", description: "Folder to run in, relative to the workspace (default: the workspace root)" },
      timeout_ms: {
        type: "integer",
        minimum: 1,
        maximum: BASH_MAX_TIMEOUT_MS,
        description: `Kill the command after this many ms (default ${BASH_DEFAULT_TIMEOUT_MS})`,
      },
    },
    required: ["command"],
    additionalProperties: false,
  } as const;
  return defineTool(inputSchema, {
    name: "bash",
    description: `Run a shell command with bash -c inside the workspace and return stdout, stderr and the exit code. stdin is closed; background processes (cmd &) are stopped when the command ends. Timeout: timeout_ms (default ${BASH_DEFAULT_TIMEOUT_MS} ms, max ${BASH_MAX_TIMEOUT_MS} ms).`,
    source: { kind: "builtin", id: "core" },
    risk: ["execute"],
    readOnly: false,
    permissionKey: "command",
    permissionMatch: "text",
    // The pipeline's backstop sits above the tool's own limit, so the tool reports its own timeout.
    timeoutMs: BASH_MAX_TIMEOUT_MS + 10_000,
    async execute(input, ctx) {
      const cwd = confinePath(ctx.root, input.cwd ?? ".", "cwd", ctx.cwd);
      if (!(await stat(cwd).catch(() => undefined))?.isDirectory())
        throw new ToolError(`\`cwd\` ${input.cwd} is not a folder in the workspace. Use list_dir to find one.`, "execution_failed");
      const timeoutMs = Math.min(input.timeout_ms ?? BASH_DEFAULT_TIMEOUT_MS, BASH_MAX_TIMEOUT_MS);
      let timedOut = false;
      // Loaded on first use: execa is the heaviest import of the built-ins and most commands never run bash.
      const [{ execa }, { decodeOutput }] = await Promise.all([import("execa"), import("./decode-output.js")]);
      // Under the sandbox (when configured) the command runs in bubblewrap; if that cannot run, the call is refused.
      const line = await ctx.host.sandbox.wrap({ root: ctx.root, cwd, argv: ["bash", "-c", input.command] }, "The command", ctx.signal);
      // Every process of the call carries its mark, so the kill path also finds those that left the process group (`setsid cmd &`).
      const mark = newCallMark();
      const env = commandEnv(ctx.host);
      const child = execa(line.file, line.args, {
        cwd,
        // without keel's model key: the command's output reaches the model
        env: { ...env, [CALL_MARK]: callMarkValue(env, mark) },
        extendEnv: false,
        stdin: "ignore",
        detached: true,
        reject: false,
        // Raw bytes: binary output must stay byte-exact, so the final newline is stripped from text only.
        encoding: "buffer",
        stripFinalNewline: false,
        timeout: timeoutMs,
        cancelSignal: ctx.signal,
        forceKillAfterDelay: 2_000,
        maxBuffer: BASH_MAX_OUTPUT_BYTES,
      });
      const killGroup = () => {
        if (child.pid === undefined) return;
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // group already gone
        }
      };
      // Stopped rather than ended (a timeout, a cancel, the output cap): what left the group (`setsid cmd &`) is found by
      // the call's mark and dies too — at once, since it may hold the output pipes the call waits on. A command that ends
      // on its own keeps what it started in a new session (`nohup setsid server &`), as before.
      let sweeping: Promise<number> | undefined;
      const sweep = () => (sweeping ??= killMarked(mark));
      const onAbort = () => {
        killGroup();
        void sweep();
      };
      const timer = setTimeout(() => {
        timedOut = true;
        onAbort();
      }, timeoutMs);
      ctx.signal.addEventListener("abort", onAbort, { once: true });
      child.once("exit", killGroup);
      let result;
      try {
        result = await child;
      } finally {
        clearTimeout(timer);
        ctx.signal.removeEventListener("abort", onAbort);
        killGroup();
      }
      const overCap = Boolean(result.isMaxBuffer);
      if (timedOut || result.timedOut || ctx.signal.aborted || result.isCanceled || overCap) await sweep();
      if (result.failed && result.exitCode === undefined && !result.isTerminated && !result.timedOut && !result.isCanceled && !overCap)
        throw new ToolError(`Could not start bash: ${result.shortMessage ?? result.message}. Is bash installed and on PATH?`, "execution_failed");
      timedOut ||= Boolean(result.timedOut);
      const binary: BinaryPart[] = [];
      const binaryStreams: ("stdout" | "stderr")[] = [];
      const decode = (stream: "stdout" | "stderr", bytes: Uint8Array | undefined): string => {
        const out = decodeOutput(bytes);
        if (out.binary === undefined) return out.text.replace(/\r?\n$/, "");
        binary.push({ data: out.binary, mimeType: "application/octet-stream", kind: stream });
        binaryStreams.push(stream);
        return `[${stream} is binary (${out.binary.length} bytes); not shown, kept as an artifact]`;
      };
      const stdout = decode("stdout", result.stdout);
      const stderr = decode("stderr", result.stderr);
      const exitCode = result.exitCode ?? null;
      const budget = ctx.host.outputBudget;
      // Secrets are hidden before the cut: a cut through one would show its start or end, which the result's redaction cannot find.
      const hide = ctx.host.resultSecrets.redactor()?.text;
      const cap = (s: string) => (s.length > budget ? truncateMiddle(hide ? hide(s) : s, budget, "see the full-output artifact").text : s);
      const data: BashData = {
        exitCode,
        stdout: cap(stdout),
        stderr: cap(stderr),
        timedOut,
        ...(result.signal ? { signal: result.signal } : {}),
        ...(binaryStreams.length ? { binary: binaryStreams } : {}),
      };
      const status = overCap
        ? `[output passed the ${BASH_MAX_OUTPUT_BYTES / 1024 / 1024} MiB cap per stream: the command was stopped and the rest of its output discarded. The first ${BASH_MAX_OUTPUT_BYTES / 1024 / 1024} MiB is in the full-output artifact named above; redirect large output to a file and read it in parts.]`
        : timedOut
          ? `[timed out after ${timeoutMs} ms; the command and its children were killed. Raise timeout_ms (max ${BASH_MAX_TIMEOUT_MS}) or run something shorter.]`
          : exitCode === null
            ? `[killed by ${result.signal ?? "a signal"}]`
            : `[exit code ${exitCode}]`;
      const parts = [stdout];
      if (stderr) parts.push(`--- stderr ---\n${stderr}`);
      parts.push(status);
      const content = parts.filter((p) => p !== "").join("\n");
      const metadata = { cwd: displayPath(ctx.cwd, cwd), exitCode, ...(ctx.host.sandbox.enabled ? { sandbox: ctx.host.sandbox.settings.mode } : {}) };
      const binaryParts = binary.length ? { binary } : {};
      if (overCap) return { ok: false, code: "execution_failed", content, data: { ...data, truncated: true }, metadata, truncated: true, ...binaryParts };
      if (timedOut) return { ok: false, code: "timeout", content, data, metadata, ...binaryParts };
      if (exitCode !== 0) return { ok: false, code: "execution_failed", content, data, metadata, ...binaryParts };
      return { content, data, metadata, ...binaryParts };
    },
  });
}
