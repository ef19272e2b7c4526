import { bodyCut } from "./cut-answers.js";
import { ModelError } from "./model-error.js";

/**
 * The JSON of a non-streamed answer's body (`res`, a 200). A body that broke off (its read failed) or was
 * cut short (fewer bytes than its Content-Length, or JSON that stops mid-way) is a cut answer (`bodyCut`:
 * transient, retried); a whole body that is not JSON (an HTML page from a proxy, plain text) is a
 * ModelError at once (`notJsonBody`). The read's own error when `signal` aborted. Never quotes the body.
 */
export async function completionJson(res: Response, where: string, signal: AbortSignal): Promise<unknown> {
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await res.arrayBuffer());
  } catch (error) {
    throw error instanceof ModelError || signal.aborted ? error : bodyCut(where, error);
  }
  const text = new TextDecoder().decode(bytes);
  try {
    return JSON.parse(text);
  } catch (error) {
    if (!wholeBody(res.headers, bytes.byteLength, text)) throw bodyCut(where, error);
    throw notJsonBody(where, res.headers, text);
  }
}

/**
 * Whether a body that did not parse as JSON came whole: as long as its Content-Length says (when the length
 * is that of what was read: not compressed), else when it does not even begin as JSON (`<html>`, plain
 * text). JSON that stops mid-way without a length to check, or nothing at all, was cut.
 */
function wholeBody(headers: Headers, received: number, text: string): boolean {
  const length = headers.get("content-length");
  const encoding = headers.get("content-encoding")?.trim().toLowerCase();
  if (length !== null && /^\d+$/.test(length.trim()) && (!encoding || encoding === "identity")) return received >= Number(length);
  const first = text.trimStart()[0];
  return first !== undefined && first !== "{" && first !== "[";
}

/**
 * The error of a whole 200 body that is not JSON: not transient (asking again gets the same page). Says what it
 * looked like (an HTML page, text, empty), its size and content type, never its text (it may echo the request's
 * credentials), and what to check.
 */
export function notJsonBody(where: string, headers: Headers, text: string): ModelError {
  const start = text.trimStart();
  const what = start === "" ? "an empty body" : start.startsWith("<") ? "an HTML or XML page" : "text that is not JSON";
  // the media type alone, in safe characters (a header is the server's: no parameters, no control characters)
  const type = /^[\w.+-]+\/[\w.+-]+/.exec(headers.get("content-type")?.trim() ?? "")?.[0].slice(0, 80) ?? "none";
  return new ModelError(
    `The model endpoint ${where} answered 200 with ${what} (${Buffer.byteLength(text)} bytes, content type ${type}) instead of a chat-completions answer in JSON, so keel did not retry it. Check "model.baseUrl" in keel config (or OPENAI_BASE_URL): it must be the OpenAI-compatible API of the server, usually ending in /v1, not a web page; a proxy or gateway in between (its login or error page) can answer this way too.`,
  );
}
