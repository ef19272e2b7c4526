import { createServer, type RequestListener, type Server } from "node:http";

/**
 * How long one HTTP client of `keel mcp serve` may take, in milliseconds. Fixed in the CLI (no
 * user needs other values: requests are small, and open streams are kept alive); tests pass tiny
 * ones.
 */
export interface HttpLimits {
  /** From the first byte of a request (or the connection) to the end of its headers: Node's `headersTimeout`, answered 408. */
  headersMs: number;
  /** From the first byte of a request to the end of its body (at most 4 MiB): Node's `requestTimeout`, answered 408. */
  requestMs: number;
  /** A socket with nothing read or written for this long is closed: a client that stops reading a response. */
  socketIdleMs: number;
  /** Interval of the SSE keep-alive comments on open streams (below `socketIdleMs`, so an idle notification stream stays open). */
  sseKeepAliveMs: number;
}

/** The CLI's limits: 10 s for headers, 60 s for a whole request, 60 s of socket silence, a keep-alive comment every 15 s. */
export const DEFAULT_HTTP_LIMITS: Readonly<HttpLimits> = Object.freeze({
  headersMs: 10_000,
  requestMs: 60_000,
  socketIdleMs: 60_000,
  sseKeepAliveMs: 15_000,
});

/**
 * An HTTP server that closes slow clients (slowloris): one that trickles its headers or body gets
 * 408 once `headersMs` or `requestMs` has passed, one that stops reading is dropped after
 * `socketIdleMs` without progress. Node checks the first two every `connectionsCheckingInterval`,
 * 30 s by default, which would let a 10 s limit run to 40 s: it is a quarter of `headersMs` here
 * (at most 1 s). Node's header limits stay (16 KiB of headers, else 431; idle keep-alive sockets
 * are closed after 5 s).
 */
export function createLimitedServer(limits: HttpLimits, listener: RequestListener): Server {
  const server = createServer(
    {
      headersTimeout: limits.headersMs,
      requestTimeout: limits.requestMs,
      connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(limits.headersMs / 4))),
    },
    listener,
  );
  server.setTimeout(limits.socketIdleMs);
  return server;
}
