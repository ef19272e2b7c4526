import { createServer, request as httpRequest, type IncomingMessage } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";

/** One request that reached the proxy. */
export interface ProxiedRequest {
  /** `CONNECT` (a tunnel, for https) or the method of an absolute-URI request (plain http). */
  method: string;
  /** `host:port` for CONNECT, the absolute URI otherwise. */
  target: string;
  /** The Proxy-Authorization header it carried. */
  proxyAuthorization?: string;
}

/** A running forward proxy on 127.0.0.1. */
export interface HttpProxy {
  /** `http://127.0.0.1:PORT` (add credentials yourself: `http://user:pass@…`). */
  url: string;
  port: number;
  /** Every request that reached it, in order (refused ones too). */
  requests: ProxiedRequest[];
  /** How many client connections to it are open now (a CONNECT tunnel's too). */
  openConnections(): number;
  close(): Promise<void>;
}

/** How the proxy behaves. */
export interface HttpProxyOptions {
  /** Host names only the proxy can resolve (to 127.0.0.1): a request to one succeeds only through the proxy. */
  hosts?: string[];
  /** `user:password` the proxy requires (407 without it). */
  credentials?: string;
  /**
   * Refuse every request with this status, as a proxy's access rules do (squid's 403 `ERR_ACCESS_DENIED`): a CONNECT
   * gets the status line and no tunnel, an absolute-URI request the status with `body` (an HTML page by default).
   */
  refuse?: { status: number; body?: string };
}

/**
 * A real HTTP forward proxy (node:http): `CONNECT host:port` opens a TCP tunnel, an absolute-URI request
 * (`GET http://host:port/path`) is forwarded; each request is recorded. Names in `hosts` resolve to 127.0.0.1 here
 * only, so reaching them proves the request went through the proxy.
 */
export async function startHttpProxy(opts: HttpProxyOptions = {}): Promise<HttpProxy> {
  const requests: ProxiedRequest[] = [];
  const sockets = new Set<Socket>();
  const expected = opts.credentials ? `Basic ${Buffer.from(opts.credentials).toString("base64")}` : undefined;
  const resolve = (host: string) => (opts.hosts?.includes(host.toLowerCase()) ? "127.0.0.1" : host);
  const allowed = (req: IncomingMessage) => {
    const auth = req.headers["proxy-authorization"];
    requests.push({ method: req.method ?? "", target: req.url ?? "", proxyAuthorization: auth });
    return !expected || auth === expected;
  };
  const refusal = opts.refuse?.body ?? `<html><body><h1>ERROR</h1><p>Access denied (${opts.refuse?.status}).</p></body></html>`;
  const server = createServer((req, res) => {
    if (!allowed(req)) {
      res.writeHead(407, { "proxy-authenticate": 'Basic realm="test"' }).end();
      return;
    }
    if (opts.refuse) {
      res.writeHead(opts.refuse.status, { "content-type": "text/html", "x-squid-error": "ERR_ACCESS_DENIED 0" }).end(refusal);
      return;
    }
    let target: URL;
    try {
      target = new URL(req.url ?? "");
    } catch {
      res.writeHead(400).end("absolute URI expected");
      return;
    }
    const headers = { ...req.headers };
    delete headers["proxy-authorization"];
    delete headers["proxy-connection"];
    const upstream = httpRequest(
      { host: resolve(target.hostname), port: target.port || 80, method: req.method, path: target.pathname + target.search, headers },
      (up) => {
        // Hop-by-hop headers stay with their hop: the client's connection to the proxy is the proxy's own (kept alive 60 s).
        const { connection: _c, "keep-alive": _k, "transfer-encoding": _t, ...headers } = up.headers;
        res.writeHead(up.statusCode ?? 502, headers);
        up.pipe(res);
      },
    );
    upstream.on("error", () => res.headersSent || res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on("connect", (req: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => undefined);
    if (!allowed(req)) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\n\r\n');
      return;
    }
    if (opts.refuse) {
      client.end(`HTTP/1.1 ${opts.refuse.status} Refused\r\nContent-Type: text/html\r\nContent-Length: ${Buffer.byteLength(refusal)}\r\n\r\n${refusal}`);
      return;
    }
    const [host = "", port = "443"] = (req.url ?? "").split(/:(?=\d+$)/);
    const upstream = connect(Number(port), resolve(host), () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on("close", () => sockets.delete(upstream));
    upstream.on("error", () => client.end("HTTP/1.1 502 Bad Gateway\r\n\r\n"));
  });
  const clients = new Set<Socket>();
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    clients.add(s);
    s.on("close", () => {
      sockets.delete(s);
      clients.delete(s);
    });
  });
  // Idle client connections stay open a minute (Node's default, 5 s, would end them soon after a test's request anyway).
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    openConnections: () => clients.size,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
