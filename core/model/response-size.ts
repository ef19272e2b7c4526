import { contentText } from "./content-text.js";
import { responseWithBody } from "./response-with-body.js";

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
  for (const text of [contentText(d.content), d.refusal, d.reasoning_content, d.reasoning]) if (typeof text === "string") n += text.length;
  if (d.reasoning_details !== undefined) n += JSON.stringify(d.reasoning_details)?.length ?? 0;
  if (Array.isArray(d.tool_calls)) n += JSON.stringify(d.tool_calls).length;
  return n;
}

/** Most bytes keel reads of a model response that is not an event stream (a whole answer, an error body): 8 per character of `maxResponseChars`. */
export function maxBodyBytes(maxOutputTokens: number): number {
  return maxResponseChars(maxOutputTokens) * 8;
}

/**
 * `res` with a body that fails (a ModelError) once it passes `maxBytes`, unless it is an event stream
 * (whose answer `maxResponseChars` bounds as it is read): the SDK reads a whole answer (`stream:
 * false`) or error body into memory, and a broken or hostile server's need not end.
 */
export function limitedBody(res: Response, maxBytes: number, tooBig: () => Error): Response {
  if (!res.body || /^\s*text\/event-stream/i.test(res.headers.get("content-type") ?? "")) return res;
  let seen = 0;
  const counted = res.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > maxBytes) controller.error(tooBig());
        else controller.enqueue(chunk);
      },
    }),
  );
  return responseWithBody(res, counted);
}
