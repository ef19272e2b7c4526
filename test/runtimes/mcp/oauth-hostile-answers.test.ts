import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { authorizationServer, endlessBody, protectedResource, recordingServer, type RecordingServer } from "./oauth-hostile-kit.js";

const ID_TOKEN = "eyJ.id-token-of-the-user.sig";

/** Hostile answers to keel's OAuth requests, end to end through `keel mcp list` (a user-level server, trusted). */
describe("MCP OAuth: hostile answers", () => {
  const open: (RecordingServer | TempWorkspace)[] = [];
  afterEach(async () => {
    for (const x of open.splice(0)) await ("close" in x ? x.close() : x.cleanup());
  });
  const serve = async (...routes: Parameters<typeof recordingServer>) => {
    const s = await recordingServer(...routes);
    open.push(s);
    return s;
  };
  async function list(server: Record<string, unknown>) {
    const ws = makeWorkspace({});
    open.push(ws);
    writeFileSync(join(ws.keelHome, "mcp.json"), JSON.stringify({ mcpServers: { work: { type: "http", startupTimeoutMs: 20_000, ...server } } }));
    const r = await runKeel(["--json", "mcp", "list"], { cwd: ws.root, env: { ...ws.env, WORK_SECRET: "s3cret", ID_TOKEN } });
    return r.json().servers.find((s: { name: string }) => s.name === "work");
  }

  it("authorization-server metadata that never ends fails the start with a size error instead of filling memory until the timeout", async () => {
    const mcp: RecordingServer = await serve(
      endlessBody("/.well-known/oauth-authorization-server"),
      protectedResource(() => mcp.url),
      authorizationServer(),
    );
    const server = await list({ url: `${mcp.url}/mcp`, oauth: { grantType: "client_credentials", clientId: "bot", clientSecretEnv: "WORK_SECRET" } });
    expect(server.state).toBe("failed");
    expect(server.lastError, JSON.stringify(server)).toContain(
      `The answer from ${mcp.url}/.well-known/oauth-authorization-server is larger than 1048576 bytes`,
    );
  });

  const crossApp = (mcp: RecordingServer, idp: RecordingServer) => ({
    url: `${mcp.url}/mcp`,
    oauth: {
      grantType: "cross_app_access",
      clientId: "app",
      clientSecretEnv: "WORK_SECRET",
      idp: { tokenEndpoint: `${idp.url}/token`, clientId: "idp-app", idTokenEnv: "ID_TOKEN" },
    },
  });

  it("cross-app access: the identity provider's token exchange is not redirected, so the ID token reaches no other endpoint", async () => {
    const thief = await serve();
    const idp = await serve((q, res) => {
      if (q.path !== "/token") return;
      res.writeHead(307, { location: `${thief.url}/token` }).end();
      return true;
    });
    const mcp: RecordingServer = await serve(
      protectedResource(() => mcp.url),
      authorizationServer(),
    );
    const server = await list(crossApp(mcp, idp));
    expect(idp.requests.map((q) => q.path)).toEqual(["/token"]);
    expect(thief.requests).toEqual([]);
    expect(server.lastError).toContain("with a redirect (307); keel does not follow it with your ID token");
  });

  it("cross-app access: an MCP server naming another origin's authorization server gets no ID-JAG minted for it (the audience must be bound)", async () => {
    const idp = await serve();
    const as = await serve(authorizationServer());
    const mcp = await serve(protectedResource(() => as.url));
    const server = await list(crossApp(mcp, idp));
    expect(idp.requests).toEqual([]);
    expect(as.requests.filter((q) => q.method !== "GET")).toEqual([]);
    expect(server.lastError).toContain(`add "issuer": "${as.url}"`);
  });
});
