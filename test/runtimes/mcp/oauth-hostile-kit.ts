import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

/** One request a test server received. */
export interface Received {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A route: answers the request (returns true) or leaves it to the next one. */
export type Route = (req: Received, res: ServerResponse, url: string) => boolean | void;

/** A real HTTP server on 127.0.0.1 that records every request and answers through `routes` (404 otherwise). */
export interface RecordingServer {
  url: string;
  requests: Received[];
  /** Everything it received, as one string (to look for a secret). */
  seen(): string;
  close(): Promise<void>;
}

/** Starts a RecordingServer on an ephemeral port. */
export async function recordingServer(...routes: Route[]): Promise<RecordingServer> {
  const requests: Received[] = [];
  let url = "";
  const srv = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r: Received = { method: req.method!, path: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      requests.push(r);
      for (const route of routes) if (route(r, res, url)) return;
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(srv.address() as { port: number }).port}`;
  return {
    url,
    requests,
    seen: () => JSON.stringify(requests),
    close: () =>
      new Promise<void>((resolve) => {
        srv.closeAllConnections();
        srv.close(() => resolve());
      }),
  };
}

const json = (res: ServerResponse, value: unknown, status = 200) => {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
  return true;
};

/** An MCP endpoint at `/mcp` that answers 401 with a `resource_metadata` challenge, and that metadata naming `authServer()` (RFC 9728). */
export function protectedResource(authServer: () => string, resource?: (url: string) => string): Route {
  return (req, res, url) => {
    if (req.path === "/mcp") {
      res.writeHead(401, { "www-authenticate": `Bearer resource_metadata="${url}/.well-known/oauth-protected-resource/mcp"` }).end();
      return true;
    }
    if (req.path === "/.well-known/oauth-protected-resource/mcp")
      return json(res, { resource: resource ? resource(url) : `${url}/mcp`, authorization_servers: [authServer()] });
  };
}

/** Authorization-server metadata (RFC 8414) for the server's own origin, `issuer` overridable; its token endpoint answers 400 (it only records). */
export function authorizationServer(issuer?: (url: string) => string): Route {
  return (req, res, url) => {
    if (req.path === "/.well-known/oauth-authorization-server")
      return json(res, {
        issuer: issuer ? issuer(url) : url,
        authorization_endpoint: `${url}/authorize`,
        token_endpoint: `${url}/token`,
        registration_endpoint: `${url}/register`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "client_credentials", "urn:ietf:params:oauth:grant-type:jwt-bearer"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["client_secret_basic", "private_key_jwt"],
      });
    if (req.path === "/token") return json(res, { error: "invalid_client" }, 400);
    if (req.path.startsWith("/authorize")) {
      const q = new URL(req.path, url).searchParams;
      res.writeHead(302, { location: `${q.get("redirect_uri")}?code=c0de&state=${q.get("state")}` }).end();
      return true;
    }
  };
}

/** Answers `path` with a JSON body that never ends (a hostile server filling memory). */
export function endlessBody(path: string): Route {
  return (req, res) => {
    if (req.path.split("?")[0] !== path) return;
    res.writeHead(200, { "content-type": "application/json" });
    res.write('{"resource": "');
    const chunk = "x".repeat(64 * 1024);
    const pump = () => {
      while (res.write(chunk));
      res.once("drain", pump);
    };
    res.on("close", () => res.removeAllListeners("drain"));
    pump();
    return true;
  };
}
