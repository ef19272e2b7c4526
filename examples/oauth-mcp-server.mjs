#!/usr/bin/env node
// A small OAuth-protected MCP server for trying `keel mcp login` locally (and for keel's tests).
// One process is both the authorization server (the MCP SDK's mcpAuthRouter: metadata, dynamic
// client registration, authorize, token, PKCE) and the resource server (streamable HTTP at /mcp,
// behind requireBearerAuth; the legacy SSE transport at /mcp/sse, posting to /mcp/messages, behind the
// same middleware). The "user" approves every authorization at once. Not for production.
//
//   node examples/oauth-mcp-server.mjs [--port 8848] [--token-ttl 3600]
//                                      [--machine-client ID:SECRET]   (client_credentials)
//                                      [--tool-scope NAME=SCOPE]      (a tool NAME whose calls need SCOPE
//                                                                      too: 403 insufficient_scope without it)
//                                      [--leaky-errors]               (a tool `leak` whose error quotes the bearer
//                                                                      token, as a careless server's might)
//                                      [--leaky-initialize]           (every `initialize` with a token fails with an
//                                                                      HTTP 502 whose body quotes the bearer token)
//
// Prints `MCP server listening at http://127.0.0.1:<port>/mcp` when ready. GET /_log returns every
// request it received (method, path, headers, body) so tests can check what a client sent.
import { randomUUID } from "node:crypto";
import express from "express";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { mcpAuthRouter, getOAuthProtectedResourceMetadataUrl } from "@modelcontextprotocol/sdk/server/auth/router.js";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import { InvalidGrantError, InvalidRequestError, InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
}
const port = Number(option("port", "0"));
const ttl = Number(option("token-ttl", "3600"));
const [machineId, machineSecret] = (option("machine-client", "") || ":").split(":");
const [scopedTool, toolScope] = (option("tool-scope", "") || "=").split("=");
const leakyErrors = process.argv.includes("--leaky-errors");
const leakyInitialize = process.argv.includes("--leaky-initialize");

/** Clients, codes and tokens in memory; the user approves every authorization request. */
class MemoryProvider {
  clients = new Map();
  codes = new Map();
  tokens = new Map();
  refresh = new Map();
  clientsStore = {
    getClient: async (id) => this.clients.get(id),
    registerClient: async (client) => (this.clients.set(client.client_id, client), client),
  };

  async authorize(client, params, res) {
    if (!client.redirect_uris.includes(params.redirectUri)) throw new InvalidRequestError("Unregistered redirect_uri");
    const code = randomUUID();
    this.codes.set(code, { client, params });
    const target = new URL(params.redirectUri);
    target.searchParams.set("code", code);
    if (params.state !== undefined) target.searchParams.set("state", params.state);
    res.redirect(target.href);
  }

  async challengeForAuthorizationCode(_client, code) {
    const data = this.codes.get(code);
    if (!data) throw new InvalidGrantError("Invalid authorization code");
    return data.params.codeChallenge;
  }

  async exchangeAuthorizationCode(client, code) {
    const data = this.codes.get(code);
    if (!data || data.client.client_id !== client.client_id) throw new InvalidGrantError("Invalid authorization code");
    this.codes.delete(code);
    return this.issue(client.client_id, data.params.scopes ?? [], true);
  }

  async exchangeRefreshToken(client, refreshToken) {
    const data = this.refresh.get(refreshToken);
    if (!data || data.clientId !== client.client_id) throw new InvalidGrantError("Invalid refresh token");
    this.refresh.delete(refreshToken);
    stats.refreshes++;
    return this.issue(client.client_id, data.scopes, true);
  }

  issue(clientId, scopes, withRefresh) {
    const access = `at-${randomUUID()}`;
    this.tokens.set(access, { clientId, scopes, expiresAt: Date.now() + ttl * 1000 });
    const out = { access_token: access, token_type: "bearer", expires_in: ttl, scope: scopes.join(" ") };
    if (withRefresh) {
      const rt = `rt-${randomUUID()}`;
      this.refresh.set(rt, { clientId, scopes });
      out.refresh_token = rt;
    }
    return out;
  }

  async verifyAccessToken(token) {
    const data = this.tokens.get(token);
    if (!data || data.expiresAt < Date.now()) throw new InvalidTokenError("Invalid or expired token");
    return { token, clientId: data.clientId, scopes: data.scopes, expiresAt: Math.floor(data.expiresAt / 1000) };
  }
}

const stats = { refreshes: 0, clientCredentials: 0 };
const log = [];
const provider = new MemoryProvider();
const app = express();
app.use((req, res, next) => {
  const entry = { method: req.method, path: req.path, headers: req.headers, body: "" };
  log.push(entry);
  // The body as parsed by the route (reading the stream here would starve the route's parser).
  res.on("finish", () => (entry.body = req.body === undefined ? "" : JSON.stringify(req.body)));
  next();
});
app.get("/_log", (_req, res) => res.json({ requests: log, stats }));

const server = app.listen(port, "127.0.0.1", () => {
  const base = `http://127.0.0.1:${server.address().port}`;
  const mcpUrl = new URL(`${base}/mcp`);
  // client_credentials for a pre-registered machine client (the SDK's token handler does not do it).
  app.post("/token", express.urlencoded({ extended: false }), (req, res, next) => {
    if (req.body?.grant_type !== "client_credentials") return next();
    // client_secret_basic, or client_secret_post.
    const [id, secret] = req.headers.authorization
      ? Buffer.from(req.headers.authorization.replace(/^Basic /, ""), "base64")
          .toString("utf8")
          .split(":")
          .map(decodeURIComponent)
      : [req.body.client_id, req.body.client_secret];
    if (!machineId || id !== machineId || secret !== machineSecret) return res.status(401).json({ error: "invalid_client" });
    stats.clientCredentials++;
    res.json(provider.issue(id, (req.body.scope ?? "mcp:tools").split(" "), false));
  });
  app.use(mcpAuthRouter({ provider, issuerUrl: new URL(base), resourceServerUrl: mcpUrl, scopesSupported: ["mcp:tools"], resourceName: "keel OAuth example" }));
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(mcpUrl);
  const auth = requireBearerAuth({ verifier: provider, resourceMetadataUrl });
  const mcpServer = (req) => {
    const mcp = new McpServer({ name: "oauth-example", version: "1.0.0" });
    mcp.registerTool("whoami", { description: "Who the bearer token belongs to" }, async () => ({
      content: [{ type: "text", text: `client ${req.auth.clientId}, scopes: ${req.auth.scopes.join(" ") || "(none)"}` }],
    }));
    if (leakyErrors)
      mcp.registerTool("leak", { description: "Fails, quoting the request's bearer token" }, async () => ({
        isError: true,
        content: [{ type: "text", text: `upstream rejected Authorization: Bearer ${req.auth.token}` }],
      }));
    if (scopedTool)
      mcp.registerTool(scopedTool, { description: `Needs the ${toolScope} scope` }, async () => ({
        content: [{ type: "text", text: `${scopedTool} ran for client ${req.auth.clientId} with scopes: ${req.auth.scopes.join(" ")}` }],
      }));
    return mcp;
  };
  // Step-up (insufficient_scope): a call of the scoped tool without its scope is refused at the HTTP
  // layer, naming every scope the token needs (the ones it has plus the tool's).
  const stepUp = (req, res, next) => {
    const call = req.body?.method === "tools/call" && req.body.params?.name === scopedTool;
    if (!scopedTool || !call || req.auth.scopes.includes(toolScope)) return next();
    const scope = [...new Set([...req.auth.scopes, toolScope])].join(" ");
    res.set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${resourceMetadataUrl}"`);
    res.status(403).json({ error: "insufficient_scope", error_description: `${scopedTool} needs the ${toolScope} scope` });
  };
  // Legacy SSE transport (protocol 2024-11-05): GET opens the stream, POSTs go to /mcp/messages.
  const sse = new Map();
  app.get("/mcp/sse", auth, async (req, res) => {
    const transport = new SSEServerTransport("/mcp/messages", res);
    sse.set(transport.sessionId, transport);
    res.on("close", () => sse.delete(transport.sessionId));
    await mcpServer(req).connect(transport);
  });
  app.post("/mcp/messages", auth, express.json(), stepUp, async (req, res) => {
    const transport = sse.get(String(req.query.sessionId));
    if (!transport) return res.status(404).json({ error: "unknown session" });
    await transport.handlePostMessage(req, res, req.body);
  });
  // A server that fails while the connection is still starting, quoting the token it was sent.
  const failInitialize = (req, res, next) => {
    if (!leakyInitialize || req.body?.method !== "initialize") return next();
    res.status(502).type("text/plain").send(`initialize failed: upstream rejected Authorization: Bearer ${req.auth.token}`);
  };
  app.all("/mcp", auth, express.json(), stepUp, failInitialize, async (req, res) => {
    const mcp = mcpServer(req);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => void transport.close());
    await mcp.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  process.stdout.write(`MCP server listening at ${mcpUrl.href}\n(legacy SSE transport at ${mcpUrl.href}/sse)\n`);
});
