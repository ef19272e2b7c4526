import { ModelError } from "./model-error.js";

/**
 * The error of a response whose body sent nothing for `idleMs` (transient: asking again may succeed). What
 * keel shows: how long, and what to do.
 */
export function streamStalled(where: string, idleMs: number): ModelError {
  return new ModelError(
    `The model endpoint ${where} stopped sending: nothing came for ${idleMs / 1000} s (model.streamIdleTimeoutMs is ${idleMs}), so keel gave up on this answer and did not record it. Check that the endpoint is up and not overloaded, then resume the session; if the model really thinks that long without sending anything, raise "model.streamIdleTimeoutMs" in keel config.`,
    true,
  );
}

/**
 * The error of a streamed answer that ended without a finish reason after `chunks` chunks, cleanly or with a
 * broken connection (`error`): transient, nothing of it is recorded.
 */
export function streamCut(where: string, chunks: number, error?: unknown): ModelError {
  const how = error === undefined ? "the stream ended" : `the connection broke (${oneLineMessage(error)})`;
  return new ModelError(
    `The model's answer from ${where} ended without finish_reason after ${chunks} chunks: ${how} before the answer was complete (a proxy's timeout, a server that crashed or restarted), so keel did not record any of it. Run again, or resume the session (keel run --resume ID); if the server never sends finish_reason when it streams, set "model.stream" to false.`,
    true,
    { cause: error },
  );
}

/**
 * The error of a streamed answer with a `data:` line that is not JSON after `chunks` chunks (a proxy that
 * mangles the stream, a server's bug): transient (a proxy's hiccup may pass), nothing of it is recorded. The
 * line itself is not quoted: it may hold anything (terminal escapes, the request's credentials echoed).
 */
export function notJsonLine(where: string, chunks: number): ModelError {
  return new ModelError(
    `The model endpoint ${where} sent a line of its event stream that is not JSON after ${chunks} chunks, so keel did not record any of the answer. Run again, or resume the session (keel run --resume ID); if it keeps happening, check "model.baseUrl" and any proxy in between (OPENAI_LOG=debug shows the lines), or set "model.stream" to false.`,
    true,
  );
}

/** The message of `error` on one line, cut to 200 characters. */
function oneLineMessage(error: unknown): string {
  const cause = (error as { cause?: unknown } | null)?.cause;
  const text = error instanceof Error ? error.message + (cause instanceof Error ? `: ${cause.message}` : "") : String(error);
  return text.replace(/\s+/g, " ").trim().slice(0, 200);
}

/**
 * The error of a non-streamed answer whose body broke off or was not whole JSON (`error`: the read or the parse
 * that failed): transient, nothing of it is recorded. A missing `finish_reason` is no sign of a cut here: the
 * body is whole or fails to parse, and some servers leave the field out of non-streamed answers (KoboldCpp did).
 */
export function bodyCut(where: string, error: unknown): ModelError {
  // Not the parser's message: it quotes the body, which may echo the request's credentials.
  const how = error instanceof SyntaxError ? "it did not parse as JSON" : oneLineMessage(error);
  return new ModelError(
    `The model's answer from ${where} was cut off: its body broke off or was not complete JSON (${how}), so keel did not record any of it (a proxy's timeout, a server that crashed or restarted). Run again, or resume the session (keel run --resume ID); if it keeps happening, check the endpoint and "model.baseUrl".`,
    true,
    { cause: error },
  );
}
