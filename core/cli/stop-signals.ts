/** The signals that stop a command, and the exit code of each when a second one ends keel at once (128 + its number). */
const STOP_SIGNALS = Object.freeze({ SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const);

/** Stream errors that mean the terminal or the pipe on the other end is gone (a hung-up terminal gives EIO, a closed pipe EPIPE). */
const GONE = Object.freeze(new Set(["EPIPE", "EIO"]));

/** What `watchStopSignals` installed, for `main` to read and remove. */
export interface StopWatch {
  /** True once SIGHUP came: the command ends with exit code 129. */
  hungUp(): boolean;
  /** Removes the signal handlers and stream listeners. */
  dispose(): void;
}

/**
 * Cancels the command through `controller` when it is told to stop: on SIGINT (Ctrl-C), SIGTERM (a CI job's timeout,
 * `kill`, a service manager) and SIGHUP (the terminal was closed or the ssh connection dropped), and when one of
 * `streams` fails because what it wrote to or read from is gone (EPIPE: `keel … | head` closed its end; EIO: a hung-up
 * terminal). The command then stops its tools' processes and records its session as it does for Ctrl-C; writes to a
 * stream that is gone are dropped, never a crash. A second signal exits at once (130, 143 or 129), except a SIGHUP
 * after a SIGHUP (the same hangup).
 */
export function watchStopSignals(controller: AbortController, streams: readonly (NodeJS.WritableStream | NodeJS.ReadableStream)[]): StopWatch {
  let signalled = false;
  let hungUp = false;
  const handlers = Object.entries(STOP_SIGNALS).map(([name, code]) => {
    const handler = () => {
      // One handler per `main`: a nested one (a chat's /tools) sees its own first signal, not the outer one's. One hangup
      // often brings several SIGHUPs (the login shell passes its own on, the kernel sends one when that shell exits):
      // those are the same hangup, not a second signal that would cut the clean-up short.
      if (hungUp && name === "SIGHUP") return;
      if (signalled) process.exit(code);
      signalled = true;
      if (name === "SIGHUP") hungUp = true;
      controller.abort();
    };
    process.on(name, handler);
    return [name, handler] as const;
  });
  const onStreamError = (error: unknown) => {
    if (GONE.has(String((error as { code?: unknown } | undefined)?.code))) controller.abort();
  };
  for (const stream of streams) stream.on("error", onStreamError);
  return {
    hungUp: () => hungUp,
    dispose() {
      for (const [name, handler] of handlers) process.off(name, handler);
      for (const stream of streams) stream.off("error", onStreamError);
    },
  };
}
