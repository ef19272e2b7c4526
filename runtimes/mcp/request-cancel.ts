/**
 * Cancels one MCP request without an AbortController per request.
 *
 * The SDK (1.32) adds an abort listener to a request's `signal` and never removes it, so a signal
 * that outlives the request (an agent turn's, a workflow run's) cannot be handed to it directly,
 * and a fresh `AbortController` per call was the largest single cost of a cancellable call on
 * Node 20 (echo with a caller signal went from 0.73× to 0.80× raw without it; bench/README.md).
 * This handle is what the SDK gets as `RequestOptions.signal` instead: `Protocol.request` reads
 * exactly `throwIfAborted()`, `aborted`, `reason` and `addEventListener("abort", fn)` of it (a
 * test pins that with a proxy that throws on anything else). `abort(reason)` — wired to the
 * pipeline's `ToolContext.onStop`, so both a cancel and the call's deadline reach it — runs the
 * SDK's own listener: it drops the request's handlers and timeout, sends `notifications/cancelled`
 * to the server and rejects the call.
 */
export class RequestCancel {
  aborted = false;
  reason: unknown = undefined;
  private onAbort: (() => void) | undefined;

  /** Cancels the request (once). */
  readonly abort = (reason: unknown): void => {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const onAbort = this.onAbort;
    this.onAbort = undefined;
    onAbort?.();
  };

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  /** The SDK's cancel callback (one per request; "abort" is the only event). */
  addEventListener(type: string, listener: () => void): void {
    if (type === "abort") this.onAbort = listener;
  }

  /** This handle as the SDK's option type (see the class comment for what the SDK reads). */
  asSignal(): AbortSignal {
    return this as unknown as AbortSignal;
  }
}
