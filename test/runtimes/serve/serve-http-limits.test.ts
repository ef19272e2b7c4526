import { type ClientRequest, type IncomingHttpHeaders, type IncomingMessage, request } from "node:http";
import { connect, type Socket } from "node:net";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { KEEL_BIN } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { openTestHost } from "../../helpers/test-host.js";
import { type HttpEndpoint, serveHttp } from "../../../runtimes/serve/http-serve.js";
import type { HttpLimits } from "../../../runtimes/serve/http-limits.js";
import { LiveHost } from "../../../runtimes/serve/live-host.js";
import { ServeHub } from "../../../runtimes/serve/serve-hub.js";
import { loadServerSdk } from "../../../runtimes/serve/serve-session.js";
import { waitFor } from "../mcp/mcp-test-kit.js";
import { type HttpServe, serveWorkspace, startHttp } from "./serve-test-kit.js";

let ws: TempWorkspace | undefined;
let server: HttpServe | undefined;
let endpoint: HttpEndpoint | undefined;
let live: LiveHost | undefined;
const open: (Socket | ClientRequest)[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) s.destroy();
  await server?.stop();
  server = undefined;
  await endpoint?.close();
  endpoint = undefined;
  await live?.close();
  live = undefined;
  ws?.cleanup();
  ws = undefined;
});

const PROTOCOL = "2025-06-18";
const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});
const LIST = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });

/** One POST to `url` (an initialize unless `body`); its status, headers and body. */
function post(url: string, headers: Record<string, string>, body = INITIALIZE): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers } },
      (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** Opens a session; its id. */
async function initialize(url: string, auth: Record<string, string>): Promise<string> {
  const r = await post(url, auth);
  expect(r.status, r.body).toBe(200);
  return r.headers["mcp-session-id"] as string;
}

/** Headers of a request on session `id`. */
const on = (auth: Record<string, string>, id: string) => ({ ...auth, "Mcp-Session-Id": id, "Mcp-Protocol-Version": PROTOCOL });

/** Opens the session's GET notification stream and leaves it open; resolves once it answered 200, with what it has received so far. */
function openStream(url: string, headers: Record<string, string>): Promise<{ res: IncomingMessage; received: () => string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "GET", headers: { Accept: "text/event-stream", ...headers } }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      if (res.statusCode !== 200) return reject(new Error(`GET stream answered ${res.statusCode}`));
      resolve({ res, received: () => text });
    });
    open.push(req);
    req.on("error", () => undefined);
    req.end();
  });
}

/** A raw TCP connection to `url`'s port: what it received, and whether the server closed it. */
function rawSocket(url: string): { socket: Socket; received: () => string; closed: () => boolean } {
  const { port } = new URL(url);
  const socket = connect(Number(port), "127.0.0.1");
  open.push(socket);
  let text = "";
  let closed = false;
  socket.on("data", (c: Buffer) => (text += c.toString()));
  socket.on("error", () => undefined);
  socket.on("close", () => (closed = true));
  return { socket, received: () => text, closed: () => closed };
}

/** Writes `text` one byte per tick until the socket closes. */
function trickle(socket: Socket, text: string): void {
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || !socket.writable) return clearInterval(timer);
    socket.write(text[i++ % text.length]!);
  }, 20);
  socket.on("close", () => clearInterval(timer));
}

/** An in-process `serveHttp` (no token, loopback) over a workspace's host, with these limits. */
async function serveInProcess(limits: HttpLimits): Promise<string> {
  ws = makeWorkspace({});
  const host = await openTestHost(ws);
  live = new LiveHost(
    host,
    () => openTestHost(ws!),
    () => undefined,
  );
  const hub = new ServeHub(live, { served: () => true, notice: () => undefined, version: "0.0.0" });
  endpoint = await serveHttp(await loadServerSdk(), hub, { host: "127.0.0.1", port: 0, token: undefined, limits });
  return endpoint.url;
}

/** Far beyond the tiny limits below, far below Node's defaults (60 s for headers, 300 s for a request). */
const WITHIN = 20_000;
const TINY: HttpLimits = { headersMs: 200, requestMs: 400, socketIdleMs: 1_000, sseKeepAliveMs: 50 };

describe("keel mcp serve --http: slow clients", () => {
  it("closes a connection that sends nothing, or trickles its headers, once the headers limit has passed (408)", async () => {
    const url = await serveInProcess(TINY);
    const silent = rawSocket(url);
    const slow = rawSocket(url);
    trickle(slow.socket, `POST /mcp HTTP/1.1\r\nHost: ${new URL(url).host}\r\nX-Slow: ${"a".repeat(10_000)}`);
    await waitFor(() => silent.closed() && slow.closed(), WITHIN);
    expect(silent.received()).toMatch(/^(HTTP\/1\.1 408|$)/);
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408/);
  });

  it("closes a request whose body trickles in once the request limit has passed (408)", async () => {
    const url = await serveInProcess(TINY);
    const slow = rawSocket(url);
    slow.socket.write(
      `POST /mcp HTTP/1.1\r\nHost: ${new URL(url).host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n{`,
    );
    trickle(slow.socket, " ");
    await waitFor(() => slow.closed(), WITHIN);
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408/);
  });

  it("keeps an open notification stream alive past the socket idle limit with keep-alive comments; the session still answers", async () => {
    const url = await serveInProcess(TINY);
    const id = await initialize(url, {});
    const stream = await openStream(url, on({}, id));
    // 30 comments at least 50 ms apart span more than the 1 s socket idle limit.
    await waitFor(() => (stream.received().match(/: keepalive/g) ?? []).length >= 30, WITHIN);
    expect(stream.res.destroyed).toBe(false);
    const list = await post(url, on({}, id), LIST);
    expect(list.status).toBe(200);
    expect(list.body).toContain('"tools"');
  });
});

describe("keel mcp serve --http --max-sessions", () => {
  it("closes the session idle longest for a new one, and refuses one with 503 when every session is busy", async () => {
    ws = serveWorkspace();
    server = await startHttp(ws, ["--max-sessions", "2"]);
    const auth = { Authorization: `Bearer ${server.token}` };
    const a = await initialize(server.url, auth);
    const b = await initialize(server.url, auth);
    // A was used after B: B is the one idle longest.
    expect((await post(server.url, on(auth, a), LIST)).status).toBe(200);
    const c = await initialize(server.url, auth);
    await waitFor(() => server!.stderr().includes(`session ${b} closed to make room for a new one (--max-sessions 2)`));
    const stale = await post(server.url, on(auth, b), LIST);
    expect(stale.status).toBe(404);
    expect(stale.body).toMatch(/Unknown or expired MCP session/);
    expect((await post(server.url, on(auth, a), LIST)).status).toBe(200);

    // Both sessions busy (an open notification stream each): a new one is refused, nothing is closed.
    const streamA = await openStream(server.url, on(auth, a));
    await openStream(server.url, on(auth, c));
    const refused = await post(server.url, auth);
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body)).toMatchObject({
      jsonrpc: "2.0",
      error: { code: -32000, message: expect.stringMatching(/already has 2 sessions.*--max-sessions/) },
    });
    expect((await post(server.url, on(auth, c), LIST)).status).toBe(200);

    // A's stream ends: A is idle again, and a new session takes its place.
    streamA.res.destroy();
    const d = await waitFor(async () => {
      const r = await post(server!.url, auth);
      return r.status === 200 ? (r.headers["mcp-session-id"] as string) : undefined;
    });
    expect(d).toBeTruthy();
    expect((await post(server.url, on(auth, a), LIST)).status).toBe(404);
    expect((await post(server.url, on(auth, c), LIST)).status).toBe(200);
  });

  it("closes an idle session only for a real initialize: a POST without a session id that is not one leaves it alone", async () => {
    ws = serveWorkspace();
    server = await startHttp(ws, ["--max-sessions", "1"]);
    const auth = { Authorization: `Bearer ${server.token}` };
    const a = await initialize(server.url, auth);
    const init = JSON.parse(INITIALIZE) as object;
    const notOpening: [Record<string, string>, string, number][] = [
      [auth, LIST, 400],
      [auth, "not json", 400],
      [auth, JSON.stringify([init, { ...init, id: 2 }]), 400],
      [{ ...auth, Accept: "application/json" }, INITIALIZE, 406],
      [{ ...auth, "Content-Type": "text/plain" }, INITIALIZE, 415],
      [auth, " ".repeat(4 * 1024 * 1024 + 1), 413],
    ];
    for (const [headers, body, status] of notOpening) expect((await post(server.url, headers, body)).status).toBe(status);
    expect((await post(server.url, on(auth, a), LIST)).status).toBe(200);
    expect(server.stderr()).not.toContain("closed to make room");
    // A real one (also as a batch of one) still makes room.
    const b = await post(server.url, auth, JSON.stringify([init]));
    expect(b.status).toBe(200);
    await waitFor(() => server!.stderr().includes(`session ${a} closed to make room for a new one (--max-sessions 1)`));
    expect((await post(server.url, on(auth, b.headers["mcp-session-id"] as string), LIST)).status).toBe(200);
  });

  it("holds the limit when many clients initialize at once: each gets a session or 503, and at most the limit stay live", async () => {
    ws = serveWorkspace();
    server = await startHttp(ws, ["--max-sessions", "2"]);
    const auth = { Authorization: `Bearer ${server.token}` };
    const opened = await Promise.all(Array.from({ length: 6 }, () => post(server!.url, auth)));
    expect(opened.map((r) => r.status).every((s) => s === 200 || s === 503)).toBe(true);
    const ids = opened.filter((r) => r.status === 200).map((r) => r.headers["mcp-session-id"] as string);
    expect(ids.length).toBeGreaterThan(0);
    const live = await Promise.all(ids.map(async (id) => (await post(server!.url, on(auth, id), LIST)).status === 200));
    expect(live.filter(Boolean).length).toBeLessThanOrEqual(2);
  });

  it("refuses --max-sessions without --http, and a non-positive value (exit 2)", async () => {
    ws = serveWorkspace();
    const stdio = await execa(process.execPath, [KEEL_BIN, "--cwd", ws.root, "mcp", "serve", "--max-sessions", "5"], { env: ws.env, reject: false });
    expect(stdio.exitCode).toBe(2);
    expect(stdio.stderr).toMatch(/--max-sessions.*apply to the HTTP transport only/);
    const zero = await execa(process.execPath, [KEEL_BIN, "--cwd", ws.root, "mcp", "serve", "--http", "--max-sessions", "0"], { env: ws.env, reject: false });
    expect(zero.exitCode).toBe(2);
    expect(zero.stderr).toMatch(/--max-sessions needs a positive integer/);
  });
});
