import { generateKeyPairSync } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { filesContaining } from "../../helpers/files-containing.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { browserPlayer } from "./oauth-example-server.js";
import { authorizationServer, protectedResource, recordingServer, type RecordingServer, type Route } from "./oauth-hostile-kit.js";

const SECRET = "user-secret-9c41";
const KEY = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();

/**
 * A hostile (or compromised) MCP server names an authorization server on another origin: keel must
 * not present the user's configured client secret or private key there unless `oauth.issuer` binds it.
 */
describe("MCP OAuth: configured credentials go to a bound authorization server only", () => {
  const open: (RecordingServer | TempWorkspace)[] = [];
  afterEach(async () => {
    for (const x of open.splice(0)) await ("close" in x ? x.close() : x.cleanup());
  });

  /** An authorization server on its own origin, and an MCP server naming it. */
  async function setup(asIssuer?: (url: string) => string) {
    const as = await recordingServer(authorizationServer(asIssuer));
    const mcp = await recordingServer(protectedResource(() => as.url));
    open.push(as, mcp);
    return { as, mcp };
  }
  /** `keel mcp list` in a workspace whose user-level manifest holds `server` (a user's own server, trusted). */
  async function list(server: Record<string, unknown>) {
    const ws = makeWorkspace({});
    open.push(ws);
    writeFileSync(join(ws.keelHome, "mcp.json"), JSON.stringify({ mcpServers: { work: { type: "http", ...server } } }));
    const env = { ...ws.env, WORK_SECRET: SECRET, WORK_KEY: KEY };
    const r = await runKeel(["--json", "mcp", "list"], { cwd: ws.root, env });
    return { ws, env, server: r.json().servers.find((s: { name: string }) => s.name === "work") };
  }

  it.each([
    ["client_secret_basic", { clientSecretEnv: "WORK_SECRET" }, SECRET],
    ["private_key_jwt", { privateKeyEnv: "WORK_KEY" }, "WORK_KEY"],
  ])(
    "client_credentials (%s) without oauth.issuer: nothing goes to another origin's authorization server; the error names its issuer",
    async (_, cred, secret) => {
      const { as, mcp } = await setup();
      const { ws, server } = await list({ url: `${mcp.url}/mcp`, oauth: { grantType: "client_credentials", clientId: "bot", ...cred } });
      // Discovery may read the metadata; no token request, no credential.
      expect(as.requests.filter((q) => q.method !== "GET")).toEqual([]);
      expect(server.state).toBe("failed");
      expect(server.lastError).toContain(`add "issuer": "${as.url}"`);
      expect(as.seen()).not.toContain(Buffer.from(`bot:${SECRET}`).toString("base64"));
      expect(as.seen()).not.toContain("client_assertion");
      expect(filesContaining(ws.root, secret === "WORK_KEY" ? "PRIVATE KEY" : SECRET)).toEqual([]);
    },
  );

  it("client_credentials with oauth.issuer: another authorization server, or metadata naming another issuer, gets nothing", async () => {
    const named = await setup();
    const other = await recordingServer(authorizationServer());
    open.push(other);
    const wrong = await list({
      url: `${named.mcp.url}/mcp`,
      oauth: { grantType: "client_credentials", clientId: "bot", clientSecretEnv: "WORK_SECRET", issuer: other.url },
    });
    expect(wrong.server.state).toBe("failed");
    expect(wrong.server.lastError).toContain(`but oauth.issuer is "${other.url}"`);
    expect(named.as.requests.filter((q) => q.method !== "GET")).toEqual([]);
    // The MCP server names the configured issuer's URL, but the metadata there claims another issuer (RFC 8414 §3.3).
    const lying = await setup(() => "https://auth.example.com");
    const bad = await list({
      url: `${lying.mcp.url}/mcp`,
      oauth: { grantType: "client_credentials", clientId: "bot", clientSecretEnv: "WORK_SECRET", issuer: lying.as.url },
    });
    expect(bad.server.lastError).toContain('says its issuer is "https://auth.example.com"');
    expect(lying.as.requests.filter((q) => q.method !== "GET")).toEqual([]);
    expect(lying.as.seen()).not.toContain(Buffer.from(`bot:${SECRET}`).toString("base64"));
  });

  it("authorization_code with a configured client secret: keel mcp login refuses another origin's authorization server before registering or redirecting", async () => {
    const { as, mcp } = await setup();
    const ws = makeWorkspace({});
    open.push(ws);
    writeFileSync(
      join(ws.keelHome, "mcp.json"),
      JSON.stringify({ mcpServers: { work: { type: "http", url: `${mcp.url}/mcp`, oauth: { clientId: "app", clientSecretEnv: "WORK_SECRET" } } } }),
    );
    const browser = browserPlayer();
    const r = await runKeel(["--json", "mcp", "login", "work", "--timeout", "20"], {
      cwd: ws.root,
      env: { ...ws.env, WORK_SECRET: SECRET },
      onStderr: browser.onStderr,
    });
    expect(as.requests.filter((q) => q.method !== "GET")).toEqual([]);
    expect(browser.visited).toEqual([]);
    expect(r.exitCode).toBe(1);
    expect(r.json().lastError).toContain(`add "issuer": "${as.url}"`);
    expect(as.seen()).not.toContain(Buffer.from(`app:${SECRET}`).toString("base64"));
  });

  it("an authorization server on the MCP server's own origin needs no oauth.issuer: the token request is sent there", async () => {
    const mcp = await recordingServer(protectedResource((() => mcp.url) as () => string), authorizationServer());
    open.push(mcp);
    const { server } = await list({ url: `${mcp.url}/mcp`, oauth: { grantType: "client_credentials", clientId: "bot", clientSecretEnv: "WORK_SECRET" } });
    // The recording server refuses the client (400 invalid_client), but the request went to the bound token endpoint.
    expect(server.state).toBe("failed");
    expect(mcp.requests.some((q) => q.method === "POST" && q.path === "/token")).toBe(true);
    // A bare `{"error": "invalid_client"}` is named, not shown as an empty error.
    expect(server.lastError).toContain(`the authorization server refused keel's request ("invalid_client", no description)`);
  });

  it("a cached discovery that oauth.issuer no longer allows is discovered afresh (not an error naming the stale server)", async () => {
    const { as, mcp } = await setup();
    const ws = makeWorkspace({});
    open.push(ws);
    const url = `${mcp.url}/mcp`;
    writeFileSync(
      join(ws.keelHome, "mcp.json"),
      JSON.stringify({ mcpServers: { work: { type: "http", url, oauth: { clientId: "app", clientSecretEnv: "WORK_SECRET", issuer: as.url } } } }),
    );
    // Stored before the user set oauth.issuer: tokens, and discovery naming an authorization server that is gone.
    const { OAuthStore } = await import("../../../runtimes/mcp/oauth-store.js");
    await new OAuthStore(ws.keelHome).write(url, {
      serverUrl: url,
      tokens: { access_token: "old", token_type: "Bearer", refresh_token: "r1" },
      discovery: { authorizationServerUrl: "http://127.0.0.1:9/" },
    });
    const r = await runKeel(["--json", "mcp", "list"], { cwd: ws.root, env: { ...ws.env, WORK_SECRET: SECRET } });
    const server = r.json().servers.find((s: { name: string }) => s.name === "work");
    // The refresh went to the bound authorization server (which refuses it here), and nothing names the stale one.
    expect(as.requests.some((q) => q.method === "POST" && q.path === "/token" && q.body.includes("refresh_token"))).toBe(true);
    expect(server.lastError).not.toContain("127.0.0.1:9");
  });
});

describe("MCP OAuth: a workspace server never receives the user's token", () => {
  it("tokens are keyed by server URL: a trusted workspace server named like the user's (ignored) or pointing elsewhere gets no token", async () => {
    const { OAuthStore } = await import("../../../runtimes/mcp/oauth-store.js");
    const refuse: Route = (_q, res) => {
      res.writeHead(401).end();
      return true;
    };
    const user = await recordingServer(refuse);
    const repo = await recordingServer(refuse);
    const ws = makeWorkspace({
      ".mcp.json": { mcpServers: { work: { type: "http", url: `${repo.url}/mcp` }, other: { type: "http", url: `${repo.url}/mcp` } } },
    });
    try {
      writeFileSync(join(ws.keelHome, "mcp.json"), JSON.stringify({ mcpServers: { work: { type: "http", url: `${user.url}/mcp` } } }));
      await new OAuthStore(ws.keelHome).update(`${user.url}/mcp`, (cur) => ({ ...cur, tokens: { access_token: "user-token-5d2e", token_type: "Bearer" } }));
      const r = await runKeel(["--trust", "--json", "mcp", "list"], { cwd: ws.root, env: ws.env });
      const servers = r.json().servers as { name: string; source: string }[];
      expect(servers.find((s) => s.name === "work")?.source).toBe(join(ws.keelHome, "mcp.json"));
      expect(user.seen()).toContain("Bearer user-token-5d2e");
      expect(repo.requests.length).toBeGreaterThan(0);
      expect(repo.seen()).not.toContain("user-token-5d2e");
      expect(filesContaining(ws.root, "user-token-5d2e")).toEqual([]);
    } finally {
      await user.close();
      await repo.close();
      ws.cleanup();
    }
  });

  it("keel mcp logout of an untrusted workspace server that shares the URL of the user's server does not remove the user's login", async () => {
    const { OAuthStore } = await import("../../../runtimes/mcp/oauth-store.js");
    const url = "http://127.0.0.1:9/mcp";
    const ws = makeWorkspace({ ".mcp.json": { mcpServers: { x: { type: "http", url } } } });
    try {
      writeFileSync(join(ws.keelHome, "mcp.json"), JSON.stringify({ mcpServers: { work: { type: "http", url } } }));
      const store = new OAuthStore(ws.keelHome);
      await store.update(url, (cur) => ({ ...cur, tokens: { access_token: "user-token-77", token_type: "Bearer" } }));
      const r = await runKeel(["mcp", "logout", "x"], { cwd: ws.root, env: ws.env });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('has the URL of your server "work"');
      expect((await store.read(url)).tokens?.access_token).toBe("user-token-77");
      expect((await runKeel(["mcp", "logout", "work"], { cwd: ws.root, env: ws.env })).exitCode).toBe(0);
      expect((await store.read(url)).tokens).toBeUndefined();
    } finally {
      ws.cleanup();
    }
  });
});
