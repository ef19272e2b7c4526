import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";

/** Largest OAuth answer keel reads (metadata, registration, token, token exchange): real ones are a few KiB. */
export const MAX_OAUTH_BODY_BYTES = 1024 * 1024;
/** Longest an OAuth request may take, answer included. */
export const OAUTH_TIMEOUT_MS = 30_000;

/** An OAuth request whose answer was too large or too slow: keel stopped reading it. */
export class OAuthResponseError extends Error {
  override name = "OAuthResponseError";
}

/** Limits of one bounded OAuth request. */
export interface OAuthLimits {
  maxBytes?: number;
  timeoutMs?: number;
}

/**
 * The fetch for OAuth traffic: each answer is read to at most `maxBytes` (a declared larger
 * `content-length` is refused at once; a body that streams past it fails the read) and the request
 * with its answer must finish within `timeoutMs` — both fail with OAuthResponseError naming the
 * URL. A POST is never redirected (`redirect: "manual"`: it carries a client secret, an assertion,
 * a code verifier or an ID token, which a redirect would hand to another endpoint); the SDK follows
 * a same-origin redirect itself where it allows one. Responses keep their status, headers and url.
 */
export function boundedOAuthFetch(base: FetchLike = fetch, limits: OAuthLimits = {}): FetchLike {
  const maxBytes = limits.maxBytes ?? MAX_OAUTH_BODY_BYTES;
  const timeoutMs = limits.timeoutMs ?? OAUTH_TIMEOUT_MS;
  return async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    const shown = redactedUrl(url);
    const timer = new AbortController();
    const tooSlow = new OAuthResponseError(`No complete answer from ${shown} within ${timeoutMs / 1000} s; keel stopped waiting for it.`);
    // Unref'd: an answer whose body nobody reads (a 404 during discovery) must not keep the process alive.
    const t = setTimeout(() => timer.abort(tooSlow), timeoutMs);
    t.unref();
    const signal = init?.signal ? AbortSignal.any([init.signal, timer.signal]) : timer.signal;
    const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
    let res: Response;
    try {
      res = await base(input, { ...init, signal, ...(method === "POST" ? { redirect: "manual" as const } : {}) });
    } catch (error) {
      clearTimeout(t);
      throw timer.signal.aborted ? tooSlow : error;
    }
    const tooLarge = new OAuthResponseError(
      `The answer from ${shown} is larger than ${maxBytes} bytes; keel stopped reading it (OAuth answers are small: check the server's URL).`,
    );
    const declared = Number(res.headers.get("content-length") ?? NaN);
    if (declared > maxBytes) {
      clearTimeout(t);
      await res.body?.cancel().catch(() => undefined);
      throw tooLarge;
    }
    if (!res.body || [101, 103, 204, 205, 304].includes(res.status)) {
      clearTimeout(t);
      return res;
    }
    let seen = 0;
    const body = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, ctl) {
          seen += chunk.byteLength;
          if (seen > maxBytes) {
            clearTimeout(t);
            ctl.error(tooLarge);
          } else ctl.enqueue(chunk);
        },
        flush: () => clearTimeout(t),
      }),
      { signal: timer.signal },
    );
    const out = new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    Object.defineProperty(out, "url", { value: res.url });
    return out;
  };
}

/**
 * True for the MCP transport's own requests (JSON-RPC messages, event streams, the session's
 * DELETE), which carry tool results of any size and long-lived streams; everything else the
 * transport's fetch sends is OAuth (discovery, registration, token requests).
 */
export function isMcpRequest(input: string | URL | Request, init?: RequestInit): boolean {
  const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
  if (headers.get("accept")?.includes("text/event-stream")) return true;
  const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
  if (method === "DELETE") return true;
  const body = init?.body;
  if (method !== "POST" || typeof body !== "string") return false;
  try {
    const msg = JSON.parse(body) as unknown;
    return (Array.isArray(msg) ? msg : [msg]).every((m) => typeof m === "object" && m !== null && (m as { jsonrpc?: unknown }).jsonrpc === "2.0");
  } catch {
    return false;
  }
}

/** The transport fetch with its OAuth requests bounded (boundedOAuthFetch) and MCP requests passed through as they are. */
export function mcpTransportFetch(base: FetchLike = fetch, limits?: OAuthLimits): FetchLike {
  const oauth = boundedOAuthFetch(base, limits);
  return (input, init) => (isMcpRequest(input, init) ? base(input, init) : oauth(input, init));
}

function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return "the server";
  }
}
