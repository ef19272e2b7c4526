/** Fewest characters one streamed answer may have before keel stops reading it (its text, reasoning and tool calls together). */
const MIN_RESPONSE_CHARS = 4 * 2 ** 20;

/**
 * Most characters (plus one per chunk) keel reads of one streamed answer asked for with this output
 * limit: 64 per token, at least 4 Mi. A server keeps to `max_tokens`; a broken or hostile one can
 * stream without end (gigabytes of text or tool-call arguments kept in memory, or empty chunks
 * forever), and keel stops it with a ModelError instead.
 */
export function maxResponseChars(maxOutputTokens: number): number {
  return Math.max(MIN_RESPONSE_CHARS, Math.ceil(maxOutputTokens) * 64);
}

/** Characters of one streamed delta keel keeps: its text (or refusal), reasoning and tool calls' names and arguments. */
export function deltaChars(delta: unknown): number {
  if (delta === null || typeof delta !== "object") return 0;
  const d = delta as {
    content?: unknown;
    refusal?: unknown;
    reasoning_content?: unknown;
    reasoning?: unknown;
    reasoning_details?: unknown;
    tool_calls?: unknown;
  };
  let n = 0;
  for (const text of [d.content, d.refusal, d.reasoning_content, d.reasoning]) if (typeof text === "string") n += text.length;
  if (d.reasoning_details !== undefined) n += JSON.stringify(d.reasoning_details)?.length ?? 0;
  if (Array.isArray(d.tool_calls)) n += JSON.stringify(d.tool_calls).length;
  return n;
}
