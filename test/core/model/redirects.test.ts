import { createServer, request, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOpenAIServer, type OpenAIServer } from "../../helpers/openai-server.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace } from "../../helpers/temp-workspace.js";

const KEY = "sk-REDIRECT-KEY-0123456789";
const HEADER_SECRET = "AZURE-HEADER-SECRET-0123456789";

/** A local HTTP server (127.0.0.1) answering with `handle`; records every request's method, path and headers. */
async function serve(handle: (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse, port: number) => void) {
  const seen: { method: string; url: string; headers: IncomingHttpHeaders }[] = [];
  const server: Server = createServer((req, res) => {
    seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers });
    handle(req, res, (server.address() as AddressInfo).port);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return { port, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

let model: OpenAIServer;
beforeAll(async () => {
  model = await startOpenAIServer();
});
afterAll(() => model.close());

describe("model endpoint redirects: followed only within the endpoint's origin", () => {
  it("a redirect to another origin fails at once and names it; the key and model.headers never reach it", async () => {
    // The other origin: `localhost` is not `127.0.0.1` (another host name, as fetch compares them).
    const other = await serve((_req, res) => res.writeHead(500).end());
    const endpoint = await serve((req, res) => res.writeHead(307, { location: `http://localhost:${other.port}${req.url}?x=QUERY-NOT-SHOWN` }).end());
    const ws = makeWorkspace({}, { git: true });
    try {
      ws.writeUserConfig({ model: { name: "m", baseUrl: `http://127.0.0.1:${endpoint.port}/v1`, headers: { "api-key": HEADER_SECRET } } });
      const r = await runKeel(["run", "hi"], { cwd: ws.root, env: { ...ws.env, OPENAI_API_KEY: KEY } });
      expect(r.exitCode).not.toBe(0);
      expect(r.stderr).toContain(`redirected keel to http://localhost:${other.port}/v1/chat/completions (307)`);
      expect(r.stderr).toContain('set "model.baseUrl" to it');
      expect(r.stderr).not.toContain("QUERY-NOT-SHOWN");
      // Fetch would send `api-key` along (it drops only Authorization across origins). Old code: fetch could not
      // re-send the body, so this failed as "Cannot reach the model … Connection error", retried twice.
      expect(other.seen).toEqual([]);
      expect(endpoint.seen).toHaveLength(1); // not worth retrying: asking again gets the same redirect
      expect(endpoint.seen[0]!.headers["api-key"]).toBe(HEADER_SECRET);
    } finally {
      ws.cleanup();
      await endpoint.close();
      await other.close();
    }
  });

  it("a 307 within the origin is followed with the request's body, and the answer arrives", async () => {
    const target = new URL(model.baseUrl);
    // `/old/v1/…` moved to `/v1/…` on the same server, which passes requests on to the test model.
    const endpoint = await serve((req, res) => {
      if (req.url!.startsWith("/old/")) return res.writeHead(307, { location: req.url!.slice("/old".length) }).end();
      const up = request(
        { host: target.hostname, port: target.port, path: `${target.pathname.replace(/\/v1$/, "")}${req.url}`, method: req.method, headers: req.headers },
        (u) => {
          res.writeHead(u.statusCode ?? 502, u.headers);
          u.pipe(res);
        },
      );
      req.pipe(up);
    });
    const ws = makeWorkspace({}, { git: true });
    try {
      // Old code: fetch's own redirect could not re-send the body: "Cannot reach the model", no answer.
      model.push({ text: "moved and answered" });
      ws.writeUserConfig({ model: { name: "m", baseUrl: `http://127.0.0.1:${endpoint.port}/old/v1`, headers: { "api-key": HEADER_SECRET } } });
      const r = await runKeel(["run", "hi"], { cwd: ws.root, env: { ...ws.env, OPENAI_API_KEY: KEY } });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toContain("moved and answered");
      expect(endpoint.seen.map((s) => `${s.method} ${s.url}`)).toEqual(["POST /old/v1/chat/completions", "POST /v1/chat/completions"]);
      expect(model.headers.at(-1)!["api-key"]).toBe(HEADER_SECRET);
    } finally {
      ws.cleanup();
      await endpoint.close();
    }
  });

  it("keel doctor reports a model list redirected to another origin instead of following it", async () => {
    const other = await serve((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"data":[]}'));
    const key = "k9f3a2b7c1d8e4f6a0b5c3d9";
    const endpoint = await serve((_req, res) => res.writeHead(302, { location: `http://localhost:${other.port}/${key}/v1/models` }).end());
    const ws = makeWorkspace({}, { git: true });
    try {
      ws.writeUserConfig({ model: { name: "m", baseUrl: `http://127.0.0.1:${endpoint.port}/v1`, headers: { "api-key": HEADER_SECRET } } });
      const r = await runKeel(["--json", "doctor"], { cwd: ws.root, env: { ...ws.env, OPENAI_API_KEY: KEY } });
      const check = r.json<{ checks: { name: string; status: string; message: string; fix?: string }[] }>().checks.find((c) => c.name === "model")!;
      // Old code: fetch followed it and the check passed, with the key header sent to the other origin.
      // ...and the key-like part of the address it names is *** (as keel prints any URL it was given).
      expect(check).toMatchObject({
        status: "fail",
        message: expect.stringContaining(`redirected to http://localhost:${other.port}/***/v1/models (HTTP 302)`),
      });
      expect(JSON.stringify(r.json())).not.toContain(key);
      expect(check.fix).toContain("model.baseUrl");
      expect(other.seen).toEqual([]);
    } finally {
      ws.cleanup();
      await endpoint.close();
      await other.close();
    }
  });
});
