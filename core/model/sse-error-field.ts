import type { Fetch } from "./idle-timeout-fetch.js";
import { responseWithBody } from "./response-with-body.js";

/**
 * `inner` with the errors of event streams made readable: llama.cpp's server (many builds) sends an
 * error that happens after its 200 headers as an SSE field of its own, `error: {"code": 400,
 * "message": "the request exceeds the available context size…", "type": …}`, then `data: [DONE]`.
 * Event-stream readers (the `openai` client's too) ignore fields they do not know, so the stream ended
 * as an answer without a chunk, and the server's words were lost. Each such line is rewritten to
 * `data: {"error": …}`, the shape OpenRouter, vLLM and Ollama send, which the client throws as the
 * provider's error (its value as the error object when it is one, else as its message). Every other
 * byte passes unchanged; responses that are not event streams are not touched.
 */
export function sseErrorFieldFetch(inner: Fetch): Fetch {
  return async (input, init) => {
    const res = await inner(input, init);
    if (!res.body || !/^text\/event-stream\b/i.test(res.headers.get("content-type") ?? "")) return res;
    return responseWithBody(res, res.body.pipeThrough(errorFieldsAsData()));
  };
}

/** Longest `error:` line rewritten; a longer one passes unchanged (and is ignored as before). */
const MAX_ERROR_LINE = 65_536;

/** Rewrites each `error:` line of an event stream (split across chunks or not) as a `data:` line holding `{"error": …}`. */
function errorFieldsAsData(): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  // "start": at a line's start, `line` holding what came of it (it may still be an `error:` line);
  // "pass": inside a line that is none, passed on as it comes.
  let mode: "start" | "pass" = "start";
  let line = "";
  const rewrite = (text: string, last: boolean): string => {
    let out = "";
    for (let at = 0; at < text.length;) {
      const nl = text.indexOf("\n", at);
      const end = nl === -1 ? text.length : nl + 1;
      const piece = text.slice(at, end);
      at = end;
      const whole = nl !== -1;
      if (mode === "pass") {
        out += piece;
        if (whole) mode = "start";
        continue;
      }
      line += piece;
      const error = line.startsWith("error:");
      // Undecided: a start that may still become `error:`, or an error line not yet whole.
      if (!whole && line.length <= MAX_ERROR_LINE && (error || "error:".startsWith(line))) continue;
      out += error && whole ? asData(line) : line;
      line = "";
      mode = whole ? "start" : "pass";
    }
    if (last && line) {
      out += line.startsWith("error:") ? asData(line) : line;
      line = "";
    }
    return out;
  };
  const emit = (text: string, controller: TransformStreamDefaultController<Uint8Array>) => {
    if (text) controller.enqueue(encoder.encode(text));
  };
  return new TransformStream({
    transform: (chunk, controller) => emit(rewrite(decoder.decode(chunk, { stream: true }), false), controller),
    flush: (controller) => emit(rewrite(decoder.decode(), true), controller),
  });
}

/** An `error: VALUE` line (with its line break) as `data: {"error": …}`. */
function asData(line: string): string {
  const value = line.slice("error:".length).replace(/^ /, "");
  const ending = /\r?\n$/.exec(value)?.[0] ?? "";
  const text = value.slice(0, value.length - ending.length);
  let error: unknown;
  try {
    error = JSON.parse(text);
  } catch {
    error = undefined;
  }
  const object = typeof error === "object" && error !== null && !Array.isArray(error) ? error : { message: text.trim() || "error" };
  return `data: ${JSON.stringify({ error: object })}${ending || "\n"}`;
}
