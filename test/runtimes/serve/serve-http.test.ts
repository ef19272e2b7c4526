import { request } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { KEEL_BIN } from "../../helpers/run-cli.js";
import type { TempWorkspace } from "../../helpers/temp-workspace.js";
import { waitFor } from "../mcp/mcp-test-kit.js";
import { type HttpServe, serveWorkspace, startHttp } from "./serve-test-kit.js";

let ws: TempWorkspace | undefined;
let server: HttpServe | undefined;
let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
  await server?.stop();
  server = undefined;
  ws?.cleanup();
  ws = undefined;
});

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

/** POSTs `body` (default: an initialize request) with these headers (node:http, so `Host` can be set); the status and body. */
function post(url: string, headers: Record<string, string>, body = INITIALIZE): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers } },
      (res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** An SDK client over HTTP; with `answer`, it declares form elicitation and answers every question with it. */
async function connect(url: string, token?: string, answer?: (message: string) => { action: "accept"; content: Record<string, string> }): Promise<Client> {
  const c = new Client({ name: "http-test", version: "1.0.0" }, { capabilities: answer ? { elicitation: { form: {} } } : {} });
  if (answer) c.setRequestHandler(ElicitRequestSchema, async (req) => answer(req.params.message));
  await c.connect(new StreamableHTTPClientTransport(new URL(url), token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : undefined));
  return c;
}

describe("keel mcp serve --http", () => {
  it("binds 127.0.0.1, prints a generated token to stderr and requires it; a client with it lists and calls tools", async () => {
    ws = serveWorkspace();
    server = await startHttp(ws);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(server.token).toMatch(/^\S{20,}$/);
    expect((await post(server.url, {})).status).toBe(401);
    expect((await post(server.url, { Authorization: "Bearer wrong" })).status).toBe(401);
    await expect(connect(server.url)).rejects.toThrow();

    client = await connect(server.url, server.token);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("say");
    const said = (await client.callTool({ name: "say", arguments: { topic: "http" } })) as { content: { text: string }[] };
    expect(said.content[0]!.text).toBe("Plugin says http");
  });

  it("rejects a foreign Host or Origin (DNS rebinding) even with the right token", async () => {
    ws = serveWorkspace();
    server = await startHttp(ws);
    const auth = { Authorization: `Bearer ${server.token}` };
    const port = new URL(server.url).port;
    expect((await post(server.url, { ...auth, Host: `evil.example:${port}` })).status).toBe(403);
    expect((await post(server.url, { ...auth, Origin: "http://evil.example" })).status).toBe(403);
    // Checked before anything else: without a token, and on another path, a foreign Host still gets 403.
    const foreign = await post(server.url.replace("/mcp", "/other"), { Host: `evil.example:${port}` });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toContain("Forbidden Host header");
    const ok = await post(server.url, { ...auth, Origin: `http://localhost:${port}` });
    expect(ok.status).toBe(200);
  });

  it("takes the token from KEEL_SERVE_TOKEN (not printed), and --no-auth works on loopback only", async () => {
    ws = serveWorkspace();
    server = await startHttp(ws, [], { KEEL_SERVE_TOKEN: "s3cret-token-from-env" });
    expect(server.token).toBeUndefined();
    expect(server.stderr()).not.toContain("s3cret-token-from-env");
    client = await connect(server.url, "s3cret-token-from-env");
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
    client = undefined;
    await server.stop();

    server = await startHttp(ws, ["--no-auth"]);
    client = await connect(server.url);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);

    const refused = await execa(process.execPath, [KEEL_BIN, "--cwd", ws.root, "mcp", "serve", "--http", "--host", "0.0.0.0", "--no-auth"], {
      env: ws.env,
      reject: false,
    });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/--no-auth is only allowed on a loopback address/);
  });

  it("refuses --host 0.0.0.0 or :: (exit 2): it would answer only requests addressed to that address, which no client uses", async () => {
    ws = serveWorkspace();
    for (const host of ["0.0.0.0", "::"]) {
      const r = await execa(process.execPath, [KEEL_BIN, "--cwd", ws.root, "mcp", "serve", "--http", "--host", host], {
        env: { ...ws.env, KEEL_SERVE_TOKEN: "a-long-enough-token-1234" },
        reject: false,
        timeout: 60_000,
      });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/pass the address clients will use/);
    }
  });

  it("refuses an empty, short or unsendable KEEL_SERVE_TOKEN (exit 2) instead of serving behind it", async () => {
    ws = serveWorkspace();
    for (const token of ["", "short", "has spaces in the middle ok? no", "trailing-space-token-xx "]) {
      const r = await execa(process.execPath, [KEEL_BIN, "--cwd", ws.root, "mcp", "serve", "--http"], {
        env: { ...ws.env, KEEL_SERVE_TOKEN: token },
        reject: false,
        timeout: 60_000,
      });
      expect(r.exitCode, `${JSON.stringify(token)}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/KEEL_SERVE_TOKEN must be at least 16 characters/);
      expect(r.stderr).not.toContain("any local process may call");
    }
  });

  it("closes a session idle for --session-idle seconds (a client gone without DELETE): its id gets 404, a new initialize works", async () => {
    ws = serveWorkspace();
    server = await startHttp(ws, ["--session-idle", "1"]);
    const transport = new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${server.token}` } } });
    client = new Client({ name: "http-test", version: "1.0.0" });
    await client.connect(transport);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    const sessionId = transport.sessionId!;
    expect(sessionId).toBeTruthy();
    // Gone without a DELETE: close() only drops the connection (terminateSession() would send DELETE).
    await client.close();
    client = undefined;
    await waitFor(() => server!.stderr().includes(`session ${sessionId} closed after 1 s without a request`) || undefined);

    const list = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
    const stale = await post(server.url, { Authorization: `Bearer ${server.token}`, "Mcp-Session-Id": sessionId, "Mcp-Protocol-Version": "2025-06-18" }, list);
    expect(stale.status).toBe(404);
    expect(stale.body).toMatch(/Unknown or expired MCP session/);

    client = await connect(server.url, server.token);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("say");
  });

  it("refuses --session-idle without --http, and a non-positive value", async () => {
    ws = serveWorkspace();
    const stdio = await execa(process.execPath, [KEEL_BIN, "--cwd", ws.root, "mcp", "serve", "--session-idle", "5"], { env: ws.env, reject: false });
    expect(stdio.exitCode).toBe(2);
    expect(stdio.stderr).toMatch(/--session-idle.*apply to the HTTP transport only/);
    const zero = await execa(process.execPath, [KEEL_BIN, "--cwd", ws.root, "mcp", "serve", "--http", "--session-idle", "0"], { env: ws.env, reject: false });
    expect(zero.exitCode).toBe(2);
  });

  it("forwards an upstream elicitation to the calling client only while that client's calls alone are in flight (else keel's policy)", async () => {
    ws = serveWorkspace();
    server = await startHttp(ws);
    const asked: string[] = [];
    client = await connect(server.url, server.token, (message) => {
      asked.push(message);
      return { action: "accept", content: { name: "Ada" } };
    });
    const other = await connect(server.url, server.token);
    try {
      // Another client's call to the same upstream server is in flight: MCP does not say which call
      // a server's question belongs to, so keel cannot forward it and its policy answers (decline).
      const controller = new AbortController();
      const waiting = other.callTool({ name: "mcp__up__wait_for_cancel", arguments: {} }, undefined, { signal: controller.signal });
      await waitFor(() => ws!.exists("started.txt"));
      const ask = (r: unknown) => (r as { content: { text: string }[] }).content[0]!.text;
      expect(ask(await client.callTool({ name: "mcp__up__ask_name", arguments: {} }))).toBe("no name (decline)");
      expect(asked).toEqual([]);
      controller.abort();
      await expect(waiting).rejects.toThrow();
      await waitFor(() => ws!.exists("cancelled.txt"));

      // Only this client's call now: the question reaches it and its answer goes upstream.
      expect(ask(await client.callTool({ name: "mcp__up__ask_name", arguments: {} }))).toBe("Hello Ada");
      expect(asked).toEqual([expect.stringMatching(/MCP server "up" \(called through keel\) asks: What is your name\?/)]);
    } finally {
      await other.close();
    }
  });
});
