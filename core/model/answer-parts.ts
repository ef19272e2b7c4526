import type { ModelToolCall } from "./model-types.js";
import { ModelError } from "./model-error.js";
import { extraContentOf } from "./streamed-tool-calls.js";

/*
 * The parts of a server's chat-completions answer, read field by field: a server may send any field as null,
 * another type or not at all, and a connection may break mid-stream.
 */

/**
 * `stream`'s chunks; an error while reading them that is neither keel's own (a ModelError: the idle limit),
 * a cancel, nor an error the server sent in the stream (`data: {"error": …}`, an APIError with a message
 * of its own) is a connection that broke mid-answer, thrown as `cut(error)`.
 */
export async function* cutOnBreak<T>(
  stream: AsyncIterable<T>,
  signal: AbortSignal,
  sdk: typeof import("openai"),
  cut: (error: unknown) => Error,
): AsyncGenerator<T> {
  try {
    yield* stream;
  } catch (error) {
    if (error instanceof ModelError || signal.aborted) throw error;
    if (error instanceof sdk.APIError && !(error instanceof sdk.APIConnectionError)) throw error;
    throw cut(error);
  }
}

/**
 * The calls with empty arguments given `{}` (some servers send none for a call without parameters), except
 * the last of an answer cut by the output limit (`length`): it was cut before its arguments, and keeps ""
 * so that it is answered as cut off instead of run without them.
 */
export function noArgumentsYet(calls: ModelToolCall[], finishReason: string | undefined): ModelToolCall[] {
  return calls.map((call, i) => (call.arguments || (finishReason === "length" && i === calls.length - 1) ? call : { ...call, arguments: "{}" }));
}

/** The usage Groq sends in `x_groq.usage` (on a stream's last chunk) when it is an object, else undefined. */
export function groqUsage(chunk: unknown): { prompt_tokens?: unknown; completion_tokens?: unknown } | undefined {
  const usage = (chunk as { x_groq?: { usage?: unknown } | null }).x_groq?.usage;
  return typeof usage === "object" && usage !== null ? usage : undefined;
}

/** `value` when it is a string, else "" (a field a server may send as null or something else). */
export function textOf(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** A finish reason as recorded in events: a short string, or undefined (a server's is not always one). */
export function finishReasonOf(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value.slice(0, 64) : undefined;
}

/** `call` with the server's `extra_content` for it, when that is a JSON object. */
export function withExtra(call: ModelToolCall, extraContent: unknown): ModelToolCall {
  const extra = extraContentOf(extraContent);
  return extra ? { ...call, extraContent: extra } : call;
}
