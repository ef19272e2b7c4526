import { CALL_MARK, callMarkValue, killMarked, newCallMark, systemEnv, systemProgram } from "../../core/index.js";

/** How one hook process ended. */
export interface HookProcessResult {
  /** `null` when the process was killed (timeout, cancel) or could not start. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Why it could not start, when it could not. */
  startError?: string;
}

/** What a hook process needs to run. */
export interface HookProcessOptions {
  command: string;
  /** JSON written to the hook's stdin. */
  stdin: string;
  cwd: string;
  env: Record<string, string | undefined>;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Wraps `bash -c COMMAND` in the OS sandbox (a workspace hook while `sandbox.workspaceCommands` is on); throws when the sandbox cannot run. */
  sandbox?: (argv: string[]) => Promise<{ file: string; args: string[] }>;
  /**
   * Folders a sandboxed command may have written (the workspace): an unsandboxed hook's `bash`, and
   * what its command starts by name, are never looked up there (see systemProgram, systemEnv).
   */
  writable: readonly string[];
}

/** Output kept per stream: a hook's answer is small; more is cut. */
const MAX_HOOK_OUTPUT_BYTES = 1024 * 1024;

/**
 * Runs one command hook with `bash -c` (under the OS sandbox when `sandbox` is given), its input on stdin, in its own process group, which is
 * killed when the hook times out, the caller's signal aborts, or the hook exits (so a background
 * child cannot outlive it); on a timeout, a cancel or the output cap, what left the group
 * (`setsid cmd &`) is killed too, found by the hook's `KEEL_CALL` mark. Never throws: a hook that cannot start has `startError`.
 */
export async function runCommandHook(o: HookProcessOptions): Promise<HookProcessResult> {
  const { execa } = await import("execa");
  let line = { file: "bash", args: ["-c", o.command] };
  let env = o.env;
  if (!o.sandbox) {
    // Outside the sandbox `jq` or `git` in the hook's command must not be a program a sandboxed
    // command planted in `node_modules/.bin` (first on PATH under `npx keel`): PATH without the workspace's folders.
    env = systemEnv(o.env, o.writable);
    const bash = systemProgram("bash", o.env, o.writable);
    if (!bash)
      return {
        exitCode: null,
        stdout: "",
        stderr: "",
        timedOut: false,
        startError: "no `bash` on PATH outside the workspace (keel never runs one found there)",
      };
    line = { ...line, file: bash };
  } else {
    try {
      line = await o.sandbox([line.file, ...line.args]);
    } catch (error) {
      // Refused, never run unsandboxed: like a hook that cannot start (a non-blocking error).
      return { exitCode: null, stdout: "", stderr: "", timedOut: false, startError: (error as Error).message };
    }
  }
  // Every process of the hook carries its mark, so the kill path also finds those that left the process group (`setsid cmd &`).
  const mark = newCallMark();
  const child = execa(line.file, line.args, {
    cwd: o.cwd,
    env: { ...env, [CALL_MARK]: callMarkValue(env, mark) },
    extendEnv: false,
    input: o.stdin,
    detached: true,
    reject: false,
    timeout: o.timeoutMs,
    ...(o.signal ? { cancelSignal: o.signal } : {}),
    forceKillAfterDelay: 1_000,
    maxBuffer: MAX_HOOK_OUTPUT_BYTES,
    stripFinalNewline: true,
  });
  const killGroup = () => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // the group is already gone
    }
  };
  // Stopped rather than ended (a timeout, a cancel, the output cap): what left the group is found by the mark and dies
  // too — at once, since it may hold the output pipes the hook's end waits on (as the bash tool does, see killMarked).
  let sweeping: Promise<number> | undefined;
  const sweep = () => (sweeping ??= killMarked(mark));
  const stop = () => {
    killGroup();
    void sweep();
  };
  let overTime = false;
  const timer = setTimeout(() => {
    overTime = true;
    stop();
  }, o.timeoutMs);
  o.signal?.addEventListener("abort", stop, { once: true });
  try {
    const r = await child;
    const timedOut = overTime || Boolean(r.timedOut);
    if (timedOut || r.isCanceled || r.isMaxBuffer || o.signal?.aborted) {
      killGroup();
      await sweep();
    }
    if (r.failed && r.exitCode === undefined && !r.isTerminated && !timedOut && !r.isCanceled && !r.isMaxBuffer)
      return { exitCode: null, stdout: "", stderr: "", timedOut: false, startError: r.shortMessage ?? r.message };
    return { exitCode: timedOut || r.isCanceled ? null : (r.exitCode ?? null), stdout: String(r.stdout ?? ""), stderr: String(r.stderr ?? ""), timedOut };
  } finally {
    clearTimeout(timer);
    o.signal?.removeEventListener("abort", stop);
    killGroup();
  }
}
