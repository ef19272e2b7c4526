import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { McpServerConfig } from "../../../manifests/mcp/mcp-server-config.js";
import { oauthFetch } from "../../../runtimes/mcp/oauth-fetch.js";
import { OAuthStore } from "../../../runtimes/mcp/oauth-store.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

/** A local HTTP server that records each request's headers and body and answers a token response. */
async function recorder(): Promise<{ url: string; seen: { path: string; headers: IncomingMessage["headers"]; body: string }[]; server: Server }> {
  const seen: { path: string; headers: IncomingMessage["headers"]; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      seen.push({ path: req.url ?? "", headers: req.headers, body });
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ access_token: "fresh-at", refresh_token: "fresh-rt", token_type: "bearer" }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

describe("oauthFetch (the fetch keel gives an OAuth transport)", () => {
  let mcp: Awaited<ReturnType<typeof recorder>>;
  let as: Awaited<ReturnType<typeof recorder>>;
  let ws: TempWorkspace;
  let server: McpServerConfig;
  beforeAll(async () => {
    [mcp, as] = await Promise.all([recorder(), recorder()]);
    ws = makeWorkspace();
    server = { name: "s", transport: "http", url: `${mcp.url}/mcp`, headers: { "X-Api-Key": "manifest-key" } } as unknown as McpServerConfig;
  });
  afterAll(() => {
    mcp?.server.close();
    as?.server.close();
    ws?.cleanup();
  });

  it("sends the manifest's headers to the MCP server's origin only, never to an authorization server", async () => {
    const f = oauthFetch(server, new OAuthStore(ws.keelHome));
    await f(`${mcp.url}/mcp`, { method: "POST", headers: { "X-Api-Key": "manifest-key", accept: "application/json" }, body: "{}" });
    await f(`${as.url}/token`, { method: "POST", headers: { "X-Api-Key": "manifest-key", accept: "application/json" }, body: "grant_type=authorization_code" });
    expect(mcp.seen.at(-1)!.headers["x-api-key"]).toBe("manifest-key");
    expect(as.seen.at(-1)!.headers["x-api-key"]).toBeUndefined();
    expect(as.seen.at(-1)!.headers.accept).toBe("application/json");
  });

  it("a refresh whose token another process already spent answers with the stored tokens and sends nothing", async () => {
    const store = new OAuthStore(ws.keelHome);
    await store.write(server.url!, { serverUrl: server.url!, tokens: { access_token: "other-at", refresh_token: "rt-2", token_type: "bearer" } });
    const f = oauthFetch(server, store);
    const before = as.seen.length;
    const stale = await f(`${as.url}/token`, { method: "POST", body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: "rt-1" }) });
    expect(await stale.json()).toMatchObject({ access_token: "other-at", refresh_token: "rt-2" });
    expect(as.seen.length).toBe(before);
    // With the current refresh token it asks the server and stores the answer.
    const fresh = await f(`${as.url}/token`, { method: "POST", body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: "rt-2" }) });
    expect(await fresh.json()).toMatchObject({ access_token: "fresh-at" });
    expect(as.seen.length).toBe(before + 1);
    expect((await store.read(server.url!)).tokens).toMatchObject({ access_token: "fresh-at", refresh_token: "fresh-rt" });
  });
});
