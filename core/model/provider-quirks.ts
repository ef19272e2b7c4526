/**
 * How OpenAI-compatible servers differ in what request they accept, and how to tell from their
 * 400 which shape they want: the output-cap field, role order after tool results, call ids, empty content.
 */

/** The request field that caps a completion's length. */
export type TokenLimitField = "max_tokens" | "max_completion_tokens";

/**
 * The field to send first: `max_completion_tokens` to OpenAI's own API (its reasoning models —
 * o-series, gpt-5 — refuse `max_tokens`, and every chat model there takes the newer field),
 * `max_tokens` to any other server (the field every OpenAI-compatible server knows). Never throws.
 */
export function firstTokenLimitField(baseUrl: string | undefined): TokenLimitField {
  if (baseUrl === undefined) return "max_completion_tokens";
  try {
    return new URL(baseUrl).hostname === "api.openai.com" ? "max_completion_tokens" : "max_tokens";
  } catch {
    return "max_tokens";
  }
}

/**
 * True when a request failed because the model wants `max_completion_tokens` instead of
 * `max_tokens` (OpenAI: 400 "Unsupported parameter: 'max_tokens' is not supported with this model.
 * Use 'max_completion_tokens' instead.", as Azure OpenAI and proxies in front of them say too).
 */
export function wantsMaxCompletionTokens(error: unknown, bodyMessage = ""): boolean {
  const e = error as { status?: unknown; message?: unknown; param?: unknown; code?: unknown; error?: { message?: unknown } } | null;
  if (e?.status !== 400) return false;
  const text = errorText(e, bodyMessage);
  if (!/max_completion_tokens/.test(text)) return false;
  // The field itself refused — not a limit that is too large, which vLLM words naming both fields.
  return e.param === "max_tokens" || e.code === "unsupported_parameter" || /unsupported parameter|not supported/i.test(text);
}

/**
 * True when a request failed because the server does not know the `stream_options` field keel sends to
 * get the usage of a streamed answer: a 400 or 422 that names the field as unrecognized, unknown,
 * unsupported, not allowed or extra (Azure OpenAI before API version 2024-09-01-preview: "Unrecognized
 * request argument supplied: stream_options"; servers validating with pydantic: "Extra inputs are not permitted").
 */
export function refusesStreamOptions(error: unknown, bodyMessage = ""): boolean {
  const e = error as { status?: unknown; param?: unknown; message?: unknown; error?: { message?: unknown } } | null;
  if (e?.status !== 400 && e?.status !== 422) return false;
  const text = errorText(e, bodyMessage);
  return (
    (e.param === "stream_options" || /stream_options/.test(text)) && /unrecogni[sz]ed|unknown|unsupported|not (?:supported|allowed|permitted)|extra/i.test(text)
  );
}

/**
 * True when a request failed because the server cannot stream an answer while tools are offered: llama.cpp's
 * server before tool calls could stream (500 "Cannot use tools with stream"; some proxies say 400) — a 400, 422
 * or 500 whose message says that streaming and tools cannot go together.
 */
export function refusesStreamWithTools(error: unknown, bodyMessage = ""): boolean {
  const e = error as { status?: unknown; message?: unknown; error?: { message?: unknown } } | null;
  if (e?.status !== 400 && e?.status !== 422 && e?.status !== 500) return false;
  const text = errorText(e, bodyMessage);
  return (
    /\b(?:cannot|can't|can not|not supported|unsupported|not (?:yet )?(?:implemented|allowed))\b/i.test(text) &&
    /\bstream/i.test(text) &&
    /\btools?\b/i.test(text)
  );
}

/** True when a request failed because the server refuses a user message right after a tool result (Mistral: 400 "Unexpected role 'user' after role 'tool'"). */
export function refusesUserAfterTool(error: unknown, bodyMessage = ""): boolean {
  const e = error as { status?: unknown; message?: unknown; error?: { message?: unknown } } | null;
  if (e?.status !== 400) return false;
  return /unexpected role '?user'? after role '?tool'?/i.test(errorText(e, bodyMessage));
}

/**
 * True when a request failed because the server accepts only 9-character `[a-zA-Z0-9]` tool-call ids (Mistral: 400
 * "Tool call id was call_1_0 but must be a-z, A-Z, 0-9, with a length of 9.").
 */
export function refusesCallIdFormat(error: unknown, bodyMessage = ""): boolean {
  const e = error as { status?: unknown; message?: unknown; error?: { message?: unknown } } | null;
  if (e?.status !== 400 && e?.status !== 422) return false;
  return /tool call id\b.*\bmust be a-z, ?A-Z, ?0-9,? with a length of 9/i.test(errorText(e, bodyMessage));
}

/**
 * True when a request failed because the server accepts only `^[a-zA-Z0-9_-]+$` tool-call ids: Anthropic's API behind an
 * OpenAI-compatible endpoint or proxy (400 "messages.1.content.1.tool_use.id: String should match pattern
 * '^[a-zA-Z0-9_-]+$'"; the result's `tool_use_id` likewise), which refuses Kimi's `functions.get_weather:0`.
 */
export function refusesCallIdPattern(error: unknown, bodyMessage = ""): boolean {
  const e = error as { status?: unknown; message?: unknown; error?: { message?: unknown } } | null;
  if (e?.status !== 400) return false;
  return /\btool_use(?:\.id|_id)\b[^\n]{0,20}string should match pattern/i.test(errorText(e, bodyMessage));
}

/**
 * True when a request failed because the server refuses a message with empty content, which OpenAI accepts: Anthropic's
 * OpenAI-compatible endpoint and proxies in front of Claude (400 "messages.3: all messages must have non-empty content
 * except for the optional final assistant message", "text content blocks must be non-empty", "content cannot be
 * empty"), Bedrock's Converse API ("The content field in the Message object at messages.3 is empty").
 */
export function refusesEmptyContent(error: unknown, bodyMessage = ""): boolean {
  const e = error as { status?: unknown; message?: unknown; error?: { message?: unknown } } | null;
  if (e?.status !== 400) return false;
  return /must have non-empty content|content blocks? must (?:be non-empty|contain non-whitespace)|content (?:cannot|can not|must not) be empty|content field in the message object at messages\.\d+ is empty/i.test(
    errorText(e, bodyMessage),
  );
}

/** Every message an SDK error carries: its own, the `error.message` of the body, and the body's message keel kept (see ErrorBodies). */
function errorText(e: { message?: unknown; error?: { message?: unknown } }, bodyMessage: string): string {
  return `${typeof e.error?.message === "string" ? e.error.message : ""} ${typeof e.message === "string" ? e.message : ""} ${bodyMessage}`;
}
