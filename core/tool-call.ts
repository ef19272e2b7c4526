import { setMaxListeners } from "node:events";
import { ToolError } from "./errors.js";
import { toolStorageMessage } from "./state/storage-problem.js";
import type { Host } from "./host.js";
import type { FileBaselineStore, ObservationCode, RunContext, ToolContext, ToolDefinition, ToolResult } from "./types.js";

/** Default execution timeout when a tool sets none. */
export const DEFAULT_TOOL_TIMEOUT_MS = 120_000;

/** The longest delay a timer takes (~24.8 days); Node fires a longer one after 1 ms instead: cap every configured timeout with it. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A failed execution, as the observation will describe it. */
export class Failure {
  constructor(
    readonly code: ObservationCode,
    readonly message: string,
    readonly data?: unknown,
    readonly metadata?: Record<string, unknown>,
  ) {}
}

/**
 * One execution of a tool, and the context the tool runs with. Its signal is created only when the
 * tool reads `signal` (AbortController is a measurable share of a fast call; `onStop` is the cheap
 * way to hear of a cancel or timeout); the caller's signal and the timeout abort it, or mark it to
 * be born aborted. The timer is cleared when the call ends.
 */
export class ToolCall implements ToolContext {
  readonly sessionId: string | undefined;
  readonly fileBaselines: FileBaselineStore;
  /** Execution timeout in ms (0: none). */
  readonly timeout: number;
  private controller: AbortController | undefined;
  private stopped: { reason: unknown } | undefined;
  private stopListeners: ((reason: unknown) => void)[] | undefined;
  /** Stops the call when the caller's signal aborts (added while the call runs). */
  private readonly onCallerAbort = () => this.stop(this.run.signal?.reason);
  /** Resolves `execute`'s promise; undefined once the call has ended. */
  private resolve: ((outcome: ToolResult | Failure) => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** `host.userWait.elapsed()` when the deadline was last (re)armed: user-wait time since then extends it. */
  private waitMark = 0;

  constructor(
    readonly host: Host,
    private readonly tool: ToolDefinition,
    readonly run: RunContext,
    readonly callId: string,
    readonly calledAs: string,
    readonly cwd: string,
    readonly root: string,
  ) {
    this.sessionId = run.sessionId;
    this.fileBaselines = run.fileBaselines ?? host.fileBaselines;
    this.timeout = tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  }

  /** Aborted on cancel or timeout; created on first read. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.stopped) this.controller.abort(this.stopped.reason);
    }
    return this.controller.signal;
  }

  onStop(listener: (reason: unknown) => void): void {
    if (this.stopped) listener(this.stopped.reason);
    else if (this.resolve) (this.stopListeners ??= []).push(listener);
  }

  /** Runs the tool: its result, or the failure (timeout, cancel, error) it ended with. Never throws. */
  execute(input: unknown): Promise<ToolResult | Failure> {
    const callerSignal = this.run.signal;
    if (callerSignal?.aborted) return Promise.resolve(this.aborted());
    return new Promise<ToolResult | Failure>((resolve) => {
      this.resolve = resolve;
      if (this.timeout > 0) {
        this.waitMark = this.host.userWait.elapsed();
        // A longer timeout (e.g. 1e10 meant as "no limit") would fire at once: such a call waits the longest a timer can.
        this.timer = setTimeout(timedOut, Math.min(this.timeout, MAX_TIMER_MS), this);
      }
      if (callerSignal) {
        // A program may share one signal among any number of concurrent calls: each removes its
        // listener when it ends, so many at once is no leak, and Node's warning past 10 would mislead.
        setMaxListeners(0, callerSignal);
        callerSignal.addEventListener("abort", this.onCallerAbort, { once: true });
      }
      let running: Promise<ToolResult>;
      try {
        running = this.tool.execute(input, this);
      } catch (error) {
        this.fail(error);
        return;
      }
      running.then(
        (result) => this.settle(result),
        (error) => this.fail(error),
      );
    });
  }

  /** Ends the call with `outcome` (the first outcome wins) and releases its timer and listener. */
  private settle(outcome: ToolResult | Failure): void {
    const resolve = this.resolve;
    if (!resolve) return;
    this.resolve = undefined;
    this.stopListeners = undefined;
    if (this.timer) clearTimeout(this.timer);
    this.run.signal?.removeEventListener("abort", this.onCallerAbort);
    resolve(outcome);
  }

  private fail(error: unknown): void {
    if (!this.resolve) return;
    if (this.stopped) this.settle(this.aborted());
    else if (error instanceof ToolError) this.settle(new Failure(error.code, error.message, error.data, error.metadata));
    else this.settle(new Failure("execution_failed", `${this.calledAs} failed: ${toolStorageMessage(error)}`));
  }

  /**
   * At the deadline: when the user was being asked something meanwhile (an elicitation), re-arms the
   * timer for that much longer and returns true; otherwise false (the call times out).
   */
  extendByUserWait(): boolean {
    const now = this.host.userWait.elapsed();
    const waited = now - this.waitMark;
    if (waited <= 0 || !this.resolve) return false;
    this.waitMark = now;
    this.timer = setTimeout(timedOut, Math.min(Math.max(1, waited), MAX_TIMER_MS), this);
    return true;
  }

  /** Ends the call as timed out or cancelled (the tool's signal is aborted with `reason`). */
  stop(reason: unknown): void {
    this.stopped ??= { reason };
    if (this.controller && !this.controller.signal.aborted) this.controller.abort(reason);
    const listeners = this.stopListeners;
    this.settle(this.aborted());
    for (const listener of listeners ?? []) {
      try {
        listener(reason);
      } catch {
        // the call has ended as cancelled or timed out either way
      }
    }
  }

  private aborted(): Failure {
    return this.run.signal?.aborted
      ? new Failure("cancelled", `${this.calledAs} was cancelled.`)
      : new Failure("timeout", `${this.calledAs} timed out after ${this.timeout} ms. Try a smaller request or a longer timeout.`);
  }
}

function timedOut(call: ToolCall): void {
  if (call.extendByUserWait()) return;
  call.stop(new DOMException(`${call.calledAs} timed out after ${call.timeout} ms`, "TimeoutError"));
}
