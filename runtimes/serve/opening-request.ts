import type { IncomingMessage } from "node:http";

/** Largest request body read, as the SDK's transport reads it (its `DEFAULT_MAX_REQUEST_BODY_SIZE`, 4 MiB). */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** The SDK's own judgements, so keel decides exactly as the transport will. */
export interface OpeningChecks {
  /** One JSON-RPC message that is an `initialize` request (the SDK's `isInitializeRequest`). */
  isInitializeRequest(message: unknown): boolean;
  /** A `Content-Type` the transport takes as JSON (the SDK's `isJsonContentType`). */
  isJsonContentType(header: string | null | undefined): boolean;
}

/**
 * What a POST without a session id carries, read before keel decides whether it may close an idle
 * session for it. `initialize`: the request will open a session (one `initialize` request, with
 * the headers the transport requires). `body`: the parsed body, for the transport (which cannot
 * read the request a second time); absent when keel left it unread for the transport to refuse
 * (wrong `Accept` or `Content-Type`). `refused`: keel's own answer, with the transport's status and
 * message (a body too large, unreadable or not JSON).
 */
export type OpeningRequest = { initialize: boolean; body?: unknown } | { refused: { status: number; code: number; message: string } };

/**
 * Reads the body of a POST without a session id when the transport would (it accepts JSON and SSE
 * and sends JSON), at most `MAX_BODY_BYTES`, and tells whether it is a real `initialize`: only
 * then may keel make room for it by closing an idle session. Never throws.
 */
export async function readOpeningRequest(req: IncomingMessage, checks: OpeningChecks): Promise<OpeningRequest> {
  const accept = req.headers.accept ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream") || !checks.isJsonContentType(req.headers["content-type"]))
    return { initialize: false };
  const text = await readBody(req);
  if (text === "unreadable") return { refused: { status: 400, code: -32700, message: "Parse error: the request body could not be read" } };
  if (text === undefined) return { refused: { status: 413, code: -32000, message: `Payload Too Large: Request body must not exceed ${MAX_BODY_BYTES} bytes` } };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { refused: { status: 400, code: -32700, message: "Parse error: Invalid JSON" } };
  }
  // The transport opens a session for one initialize request alone (a batch holding it and more is refused).
  const messages = Array.isArray(body) ? body : [body];
  return { initialize: messages.length === 1 && checks.isInitializeRequest(messages[0]), body };
}

/** The body as text; undefined when it is larger than `MAX_BODY_BYTES` (the rest is read and dropped, so the answer still reaches the client). */
function readBody(req: IncomingMessage): Promise<string | undefined | "unreadable"> {
  if (Number(req.headers["content-length"]) > MAX_BODY_BYTES) {
    req.resume();
    return Promise.resolve(undefined);
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) return void chunks.push(chunk);
      req.off("data", onData);
      req.resume();
      resolve(undefined);
    };
    req.on("data", onData);
    req.once("end", () => resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString("utf8")));
    req.once("error", () => resolve("unreadable"));
    req.once("aborted", () => resolve("unreadable"));
  });
}
