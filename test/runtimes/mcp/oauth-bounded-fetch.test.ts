import { afterEach, describe, expect, it } from "vitest";
import { boundedOAuthFetch, mcpTransportFetch } from "../../../runtimes/mcp/oauth-bounded-fetch.js";
import { endlessBody, recordingServer, type RecordingServer } from "./oauth-hostile-kit.js";

describe("boundedOAuthFetch / mcpTransportFetch (against real servers on 127.0.0.1)", () => {
  const open: RecordingServer[] = [];
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
  });
  const serve = async (...routes: Parameters<typeof recordingServer>) => {
    const s = await recordingServer(...routes);
    open.push(s);
    return s;
  };

  it("an answer that streams past the limit fails the read with an error naming the URL (without its query)", async () => {
    const s = await serve(endlessBody("/.well-known/oauth-protected-resource"));
    const res = await boundedOAuthFetch(fetch, { maxBytes: 256 * 1024 })(`${s.url}/.well-known/oauth-protected-resource?x=secret`);
    await expect(res.json()).rejects.toThrow(`The answer from ${s.url}/.well-known/oauth-protected-resource is larger than 262144 bytes`);
  });

  it("a declared content-length over the limit is refused before the body is read", async () => {
    const s = await serve((_q, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(4 * 1024 * 1024) }).write("{");
      return true;
    });
    await expect(boundedOAuthFetch(fetch, { maxBytes: 1024 })(`${s.url}/token`, { method: "POST", body: "grant_type=x" })).rejects.toThrow(
      "larger than 1024 bytes",
    );
  });

  it("an answer that never completes fails after the time limit with a clear error, whether its headers came or not", async () => {
    const s = await serve((q, res) => {
      if (q.path === "/silent") return true; // never answers
      res.writeHead(200, { "content-type": "application/json" }).write('{"a":');
      return true;
    });
    const tooSlow = (path: string) => `No complete answer from ${s.url}${path} within 0.3 s`;
    // No headers: the request itself fails.
    await expect(boundedOAuthFetch(fetch, { timeoutMs: 300 })(`${s.url}/silent`)).rejects.toThrow(tooSlow("/silent"));
    // The headers came, the body never ends: reading it fails. The request is made before the limit starts (a base fetch
    // that returns it), so that a loaded machine taking 0.3 s for the headers cannot make this the case above.
    const path = "/.well-known/oauth-authorization-server";
    const headersCame = await fetch(`${s.url}${path}`);
    const res = await boundedOAuthFetch(async () => headersCame, { timeoutMs: 300 })(`${s.url}${path}`);
    await expect(res.text()).rejects.toThrow(tooSlow(path));
  });

  it("a POST is never redirected: the 307 comes back unfollowed and the target receives nothing", async () => {
    const target = await serve();
    const s = await serve((_q, res) => {
      res.writeHead(307, { location: `${target.url}/steal` }).end();
      return true;
    });
    const res = await boundedOAuthFetch()(`${s.url}/token`, { method: "POST", body: "client_secret=s3cret" });
    expect(res.status).toBe(307);
    expect(target.requests).toEqual([]);
  });

  it("MCP messages and event streams pass unbounded; the transport's other requests (OAuth) are bounded", async () => {
    const big = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { text: "y".repeat(5000) } });
    const s = await serve((_q, res) => {
      res.writeHead(200, { "content-type": "application/json" }).end(big);
      return true;
    });
    const f = mcpTransportFetch(fetch, { maxBytes: 1000 });
    const rpc = await f(`${s.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(await rpc.text()).toBe(big);
    const stream = await f(`${s.url}/mcp`, { headers: { accept: "text/event-stream" } });
    expect((await stream.text()).length).toBe(big.length);
    const meta = await f(`${s.url}/.well-known/oauth-protected-resource/mcp`);
    await expect(meta.text()).rejects.toThrow("larger than 1000 bytes");
    const reg = await f(`${s.url}/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "keel" }),
    });
    await expect(reg.json()).rejects.toThrow("larger than 1000 bytes");
  });
});
