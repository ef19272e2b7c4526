import { randomUUID, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createLimitedServer, DEFAULT_HTTP_LIMITS, type HttpLimits } from "./http-limits.js";
import { IdleSessions } from "./idle-sessions.js";
import { readOpeningRequest, type OpeningChecks } from "./opening-request.js";
import type { ServeHub } from "./serve-hub.js";
import { createServeSession, type loadServerSdk } from "./serve-session.js";

/** Path the MCP endpoint answers on. */
export const SERVE_PATH = "/mcp";
/** Default `--session-idle`: a session with no request for 30 minutes is closed. */
export const DEFAULT_SESSION_IDLE_SECONDS = 30 * 60;
/** Default `--max-sessions`: live client sessions at once. */
export const DEFAULT_MAX_SESSIONS = 64;

/** Options of the HTTP transport. */
export interface HttpServeOptions {
  host: string;
  /** 0: any free port. */
  port: number;
  /** Bearer token every request must carry; undefined only for `--no-auth` on loopback. */
  token: string | undefined;
  /** Seconds without a request after which a session is closed (default 30 minutes). */
  sessionIdleSeconds?: number;
  /** Live sessions at once (default 64); a new one closes the session idle longest, or is refused with 503 when all are busy. */
  maxSessions?: number;
  /** Slow-client limits (default `DEFAULT_HTTP_LIMITS`). */
  limits?: HttpLimits;
  /** Where a line about an expired session goes (stderr in the CLI). */
  notice?: (line: string) => void;
}

/** A running HTTP endpoint. */
export interface HttpEndpoint {
  url: string;
  /** Closes every session and the listener. */
  close(): Promise<void>;
}

/** True for addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * Serves the hub over streamable HTTP (the SDK's transport, one `Server` per client session) at
 * `http://host:port/mcp`. Every request needs `Authorization: Bearer <token>` when a token is set
 * (401 otherwise); every request whose `Host` is not this listener's address (`localhost` too on
 * loopback), or whose browser `Origin` is not one of those hosts, gets 403 first (DNS rebinding; the
 * SDK's own check for this is deprecated in favour of the server's).
 * A session with no request for `sessionIdleSeconds` is closed; its id then gets the spec's 404.
 * At most `maxSessions` live at once: a new session (a real `initialize` request, read before anything
 * is closed for it) closes the one idle longest (its client gets
 * 404 and initializes again, as after expiry), or, when every session has a request in flight or an
 * open stream, is refused with 503. Slow clients are cut off by `limits` (`createLimitedServer`).
 */
export async function serveHttp(sdk: Awaited<ReturnType<typeof loadServerSdk>>, hub: ServeHub, opts: HttpServeOptions): Promise<HttpEndpoint> {
  const [{ StreamableHTTPServerTransport }, { isJsonContentType }] = await Promise.all([
    import("@modelcontextprotocol/sdk/server/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/shared/mediaType.js"),
  ]);
  const checks: OpeningChecks = { isInitializeRequest: sdk.isInitializeRequest, isJsonContentType };
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const idleSeconds = opts.sessionIdleSeconds ?? DEFAULT_SESSION_IDLE_SECONDS;
  const idle = new IdleSessions(idleSeconds * 1000);
  const maxSessions = opts.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const limits = opts.limits ?? DEFAULT_HTTP_LIMITS;
  // Initialize requests in flight whose session is not in `transports` yet, counted against maxSessions too.
  let opening = 0;
  let allowedHosts: string[] = [];
  const expected = opts.token === undefined ? undefined : Buffer.from(`Bearer ${opts.token}`);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // DNS rebinding: a web page whose name now resolves to 127.0.0.1 sends its own Host (and a browser its Origin).
    const foreign = foreignHostOrOrigin(req, allowedHosts);
    if (foreign) return reply(res, 403, foreign);
    const path = (req.url ?? "/").split("?")[0];
    if (path !== SERVE_PATH) return reply(res, 404, `Not found: the MCP endpoint is ${SERVE_PATH}.`);
    if (expected && !sameSecret(req.headers.authorization, expected)) {
      res.setHeader("WWW-Authenticate", 'Bearer realm="keel"');
      return reply(
        res,
        401,
        "Missing or wrong bearer token: send `Authorization: Bearer <token>` with the token keel mcp serve printed (or KEEL_SERVE_TOKEN).",
      );
    }
    const sessionId = req.headers["mcp-session-id"];
    const existing = typeof sessionId === "string" ? transports.get(sessionId) : undefined;
    if (existing) {
      // The idle clock stops while this request (or its SSE stream) is open.
      res.once("close", idle.begin(sessionId as string));
      return existing.handleRequest(req, res);
    }
    if (sessionId !== undefined) return reply(res, 404, "Unknown or expired MCP session: initialize a new one.");
    if (req.method !== "POST") return reply(res, 400, "No MCP session: start one with an initialize request (POST).");
    // Only a request that will open a session may close another: read it first (the transport refuses the rest).
    const opened = await readOpeningRequest(req, checks);
    if ("refused" in opened) return reply(res, opened.refused.status, opened.refused.message, opened.refused.code);
    if (!opened.initialize) return openSession(req, res, opened.body);
    // Evicting an idle session keeps a client that never sends DELETE (a new session per task) working, with bounded memory.
    while (transports.size + opening >= maxSessions)
      if (!(await idle.evictIdlest()))
        return reply(
          res,
          503,
          `keel mcp serve already has ${maxSessions} sessions, each with a request in flight or an open stream: end one (DELETE its session) or restart keel mcp serve with a higher --max-sessions.`,
        );
    return openSession(req, res, opened.body);
  };

  /** Hands the request to a new transport (`body`: already read from it, parsed). */
  const openSession = async (req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> => {
    // Counted in `opening` until it is a session in `transports` (or turns out not to be one).
    let pending = true;
    const settled = () => {
      if (pending) opening--;
      pending = false;
    };
    opening++;
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      keepAliveMs: limits.sseKeepAliveMs,
      onsessioninitialized: (id) => {
        settled();
        transports.set(id, transport);
        idle.add(id, async (reason) => {
          opts.notice?.(
            reason === "idle"
              ? `keel mcp serve: session ${id} closed after ${idleSeconds} s without a request (--session-idle).`
              : `keel mcp serve: session ${id} closed to make room for a new one (--max-sessions ${maxSessions}); it was idle longest.`,
          );
          await server.close();
        });
      },
    });
    transport.onclose = () => {
      if (!transport.sessionId) return;
      transports.delete(transport.sessionId);
      idle.forget(transport.sessionId);
    };
    const server = createServeSession(sdk, hub);
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      settled();
    }
    // A request that did not open a session (not an initialize, a rejected Host) leaves nothing behind.
    if (!transport.sessionId) await server.close();
  };

  const http = createLimitedServer(limits, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) reply(res, 500, `keel mcp serve failed on this request: ${(error as Error)?.message ?? String(error)}`);
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(opts.port, opts.host, () => {
      http.off("error", reject);
      resolve();
    });
  });
  const port = (http.address() as AddressInfo).port;
  const bracketed = opts.host.includes(":") && !opts.host.startsWith("[") ? `[${opts.host}]` : opts.host;
  allowedHosts = isLoopback(opts.host) ? [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`] : [`${bracketed}:${port}`];
  if (!allowedHosts.includes(`${bracketed}:${port}`)) allowedHosts.push(`${bracketed}:${port}`);
  return {
    url: `http://${bracketed}:${port}${SERVE_PATH}`,
    async close() {
      await Promise.all([...transports.values()].map((t) => t.close().catch(() => undefined)));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function sameSecret(header: string | undefined, expected: Buffer): boolean {
  if (typeof header !== "string") return false;
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Why a request comes from a foreign `Host` or browser `Origin` (DNS rebinding), or undefined when both are this listener's. */
function foreignHostOrOrigin(req: IncomingMessage, allowedHosts: readonly string[]): string | undefined {
  const host = req.headers.host;
  if (host === undefined || !allowedHosts.includes(host.toLowerCase()))
    return `Forbidden Host header ${JSON.stringify(host ?? "")}: keel mcp serve answers only requests addressed to ${allowedHosts.join(" or ")}.`;
  const origin = req.headers.origin;
  if (origin !== undefined && !allowedHosts.some((h) => origin.toLowerCase() === `http://${h}`))
    return `Forbidden Origin ${JSON.stringify(origin)}: keel mcp serve answers browsers only from its own address.`;
  return undefined;
}

function reply(res: ServerResponse, status: number, message: string, code = -32000): void {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}
