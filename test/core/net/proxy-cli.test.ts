import type { ResultPromise } from "execa";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpsServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { filesContaining } from "../../helpers/files-containing.js";
import { startHttpProxy, type HttpProxy } from "../../helpers/http-proxy.js";
import { useOpenAIServer } from "../../helpers/openai-server.js";
import { runKeel, runKeelProcess } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { startEverythingHttp } from "../../runtimes/mcp/mcp-test-kit.js";
import { startOAuthExample } from "../../runtimes/mcp/oauth-example-server.js";

// Names only the test proxy resolves (to 127.0.0.1): reaching them at all proves the request went through it.
const MODEL_HOST = "model.keel.test";
const MCP_HOST = "mcp.keel.test";
const PASSWORD = "proxy-pw-Zq81xVc";
const CREDENTIALS = `corp-user:${PASSWORD}`;

const server = useOpenAIServer();

/** The environment of a run behind `proxy` (with its credentials), every other proxy variable of this machine removed. */
function behind(ws: TempWorkspace, proxy: HttpProxy, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...ws.env };
  for (const name of ["http_proxy", "https_proxy", "no_proxy", "all_proxy"]) {
    delete env[name];
    delete env[name.toUpperCase()];
  }
  const url = `http://${CREDENTIALS}@127.0.0.1:${proxy.port}`;
  return { ...env, HTTP_PROXY: url, HTTPS_PROXY: url, ...extra };
}

/** No file keel wrote (the workspace's `.keel`, KEEL_HOME) holds the proxy password. */
function expectNoPasswordOnDisk(ws: TempWorkspace): void {
  expect(filesContaining(ws.path(".keel"), PASSWORD)).toEqual([]);
  expect(filesContaining(ws.keelHome, PASSWORD)).toEqual([]);
}

describe("outgoing requests go through HTTPS_PROXY / HTTP_PROXY", () => {
  let proxy: HttpProxy;
  let ws: TempWorkspace | undefined;
  const children: ResultPromise[] = [];
  let mcpPort = 0;
  let ssePort = 0;
  beforeAll(async () => {
    proxy = await startHttpProxy({ hosts: [MODEL_HOST, MCP_HOST], credentials: CREDENTIALS });
    const servers = await Promise.all([startEverythingHttp("streamableHttp"), startEverythingHttp("sse")]);
    children.push(...servers.map((s) => s.child));
    [mcpPort, ssePort] = servers.map((s) => s.port);
  });
  afterAll(async () => {
    for (const c of children) c.kill();
    await proxy?.close();
  });
  afterEach(() => {
    ws?.cleanup();
    ws = undefined;
    proxy.requests.length = 0;
  });

  it("keel run reaches a model endpoint only the proxy can resolve, with the proxy's credentials; the password is printed and stored nowhere", async () => {
    ws = makeWorkspace({}, { git: true });
    const port = new URL(server.baseUrl).port;
    ws.writeUserConfig({ model: { name: "m", baseUrl: `http://${MODEL_HOST}:${port}/v1` } });
    server.push({ text: "answer through the proxy" });
    const r = await runKeel(["run", "say hi"], { cwd: ws.root, env: behind(ws, proxy) });
    expect(r.stderr).not.toContain(PASSWORD);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("answer through the proxy");
    const chat = proxy.requests.find((q) => q.target.endsWith("/v1/chat/completions"));
    expect(chat).toMatchObject({ method: "POST", target: `http://${MODEL_HOST}:${port}/v1/chat/completions` });
    expect(chat!.proxyAuthorization).toBe(`Basic ${Buffer.from(CREDENTIALS).toString("base64")}`);
    expect(r.stdout).not.toContain(PASSWORD);
    expectNoPasswordOnDisk(ws);
  });

  it("keel call runs a remote MCP tool (streamable HTTP) through the proxy", async () => {
    ws = makeWorkspace({ ".mcp.json": { mcpServers: { remote: { type: "http", url: `http://${MCP_HOST}:${mcpPort}/mcp` } } } });
    const r = await runKeel(["--trust", "--yes", "--json", "call", "mcp__remote__echo", "--input", JSON.stringify({ message: "via proxy" })], {
      cwd: ws.root,
      env: behind(ws, proxy),
    });
    expect(r.json()).toMatchObject({ ok: true, content: "Echo: via proxy" });
    expect(proxy.requests.some((q) => q.method === "POST" && q.target === `http://${MCP_HOST}:${mcpPort}/mcp`)).toBe(true);
    expect(r.stdout + r.stderr).not.toContain(PASSWORD);
    expectNoPasswordOnDisk(ws);
  });

  it("keel call runs a remote MCP tool over the legacy SSE transport through the proxy (the event stream too)", async () => {
    ws = makeWorkspace({ ".mcp.json": { mcpServers: { legacy: { type: "sse", url: `http://${MCP_HOST}:${ssePort}/sse` } } } });
    const r = await runKeel(["--trust", "--yes", "--json", "call", "mcp__legacy__echo", "--input", JSON.stringify({ message: "old" })], {
      cwd: ws.root,
      env: behind(ws, proxy),
    });
    expect(r.json()).toMatchObject({ ok: true, content: "Echo: old" });
    expect(proxy.requests).toContainEqual(expect.objectContaining({ method: "GET", target: `http://${MCP_HOST}:${ssePort}/sse` }));
    expect(proxy.requests.some((q) => q.method === "POST" && q.target.startsWith(`http://${MCP_HOST}:${ssePort}/message`))).toBe(true);
  });

  it("OAuth (discovery and the token request of a client_credentials server) goes through the proxy too", async () => {
    const machine = await startOAuthExample(["--machine-client", "build-bot:bot-secret-1"]);
    try {
      ws = makeWorkspace({
        ".mcp.json": {
          mcpServers: {
            bot: { type: "http", url: machine.url, oauth: { grantType: "client_credentials", clientId: "build-bot", clientSecretEnv: "BOT_SECRET" } },
          },
        },
      });
      const env = behind(ws, proxy, { BOT_SECRET: "bot-secret-1" });
      const r = await runKeel(["--trust", "--yes", "--json", "call", "mcp__bot__whoami"], { cwd: ws.root, env });
      expect(r.json()).toMatchObject({ ok: true, content: expect.stringContaining("client build-bot") });
      const origin = new URL(machine.url).origin;
      const targets = proxy.requests.map((q) => `${q.method} ${q.target}`);
      expect(targets).toContainEqual(expect.stringMatching(new RegExp(`^GET ${origin}/\\.well-known/oauth-`)));
      expect(targets).toContainEqual(expect.stringMatching(new RegExp(`^POST ${origin}/.*token`)));
      expect(targets).toContain(`POST ${machine.url}`);
    } finally {
      await machine.stop();
    }
  });

  it("loopback goes through the proxy as in curl; NO_PROXY (a host, with a port, or an address) sends it direct", async () => {
    ws = makeWorkspace({}, { git: true });
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    const port = new URL(server.baseUrl).port;
    server.push({ text: "first" });
    const proxied = await runKeel(["run", "one"], { cwd: ws.root, env: behind(ws, proxy) });
    expect(proxied.stdout).toContain("first");
    expect(proxy.requests.some((q) => q.target === `${server.baseUrl}/chat/completions`)).toBe(true);
    for (const noProxy of ["localhost,127.0.0.1", `127.0.0.1:${port}`, ".example.com, 127.0.0.0/8", "*"]) {
      proxy.requests.length = 0;
      server.push({ text: `direct ${noProxy}` });
      const direct = await runKeel(["run", "two"], { cwd: ws.root, env: behind(ws, proxy, { NO_PROXY: noProxy }) });
      expect(direct.stdout).toContain(`direct ${noProxy}`);
      expect(proxy.requests).toEqual([]);
    }
    // keel doctor says which way the model endpoint goes.
    const model = async (env: NodeJS.ProcessEnv) =>
      (await runKeel(["--json", "doctor"], { cwd: ws!.root, env }))
        .json<{ checks: { name: string; message: string }[] }>()
        .checks.find((c) => c.name === "model")!;
    expect((await model(behind(ws, proxy, { NO_PROXY: "127.0.0.1" }))).message).toContain(`${server.baseUrl} directly (NO_PROXY lists it)`);
    expect((await model(behind(ws, proxy))).message).toContain(`${server.baseUrl} through the proxy http://***@127.0.0.1:${proxy.port}`);
    // A port NO_PROXY does not name still goes through the proxy.
    proxy.requests.length = 0;
    server.push({ text: "other port" });
    await runKeel(["run", "three"], { cwd: ws.root, env: behind(ws, proxy, { no_proxy: "127.0.0.1:1" }) });
    expect(proxy.requests.length).toBeGreaterThan(0);
  });

  it("a proxy that refuses the credentials fails the run with the proxy's answer, never the password", async () => {
    ws = makeWorkspace({}, { git: true });
    ws.writeUserConfig({ model: { name: "m", baseUrl: `http://${MODEL_HOST}:${new URL(server.baseUrl).port}/v1`, maxRetries: 0 } });
    const env = behind(ws, proxy, { HTTP_PROXY: `http://corp-user:wrong-${PASSWORD}@127.0.0.1:${proxy.port}` });
    const r = await runKeel(["--json", "run", "hi"], { cwd: ws.root, env });
    expect(r.exitCode).not.toBe(0);
    expect(r.json().message).toContain(`through the proxy http://***@127.0.0.1:${proxy.port} (Proxy Authentication Required (407))`);
    expect(proxy.requests.length).toBeGreaterThan(0);
    expect(r.stdout + r.stderr).not.toContain(PASSWORD);
    expectNoPasswordOnDisk(ws);

    // A remote MCP server behind the same proxy: its error says what the proxy answered and what to check.
    ws.write(".mcp.json", { mcpServers: { remote: { type: "http", url: `http://${MCP_HOST}:${mcpPort}/mcp` } } });
    const list = await runKeel(["--trust", "--json", "mcp", "doctor"], { cwd: ws.root, env });
    const remote = list.json().servers.find((s: { name: string }) => s.name === "remote");
    expect(remote).toMatchObject({
      state: "failed",
      lastError: expect.stringContaining(`Proxy Authentication Required (407) (through the proxy http://***@127.0.0.1:${proxy.port})`),
    });
    expect(remote.hint).toContain("NO_PROXY");
    expect(list.stdout + list.stderr).not.toContain(PASSWORD);
    expectNoPasswordOnDisk(ws);
  });

  it("a proxy keel cannot use (socks5://) is a failed doctor check and a model error that say so", async () => {
    ws = makeWorkspace({}, { git: true });
    ws.writeUserConfig({ model: { name: "m", baseUrl: `http://${MODEL_HOST}:${new URL(server.baseUrl).port}/v1`, maxRetries: 0 } });
    const env = behind(ws, proxy, { HTTP_PROXY: `socks5://corp-user:${PASSWORD}@127.0.0.1:1080` });
    const doctor = await runKeel(["--json", "doctor"], { cwd: ws.root, env });
    const checks = doctor.json<{ checks: { name: string; status: string; message: string }[] }>().checks;
    expect(checks.find((c) => c.name === "proxy")).toMatchObject({
      status: "fail",
      message: expect.stringContaining("socks5://***@127.0.0.1:1080 is not an http:// or https:// URL keel can read"),
    });
    const run = await runKeel(["--json", "run", "hi"], { cwd: ws.root, env });
    expect(run.json().message).toContain("is not an http:// or https:// URL");
    expect(doctor.stdout + run.stdout + run.stderr).not.toContain(PASSWORD);
    // Nor one that does not parse: its text (credentials and all) is never repeated.
    const broken = behind(ws, proxy, { HTTP_PROXY: `http://corp-user:${PASSWORD}@[bad` });
    const again = await runKeel(["--json", "run", "hi"], { cwd: ws.root, env: broken });
    expect(again.json().message).toContain("(a proxy URL keel cannot read) (from HTTPS_PROXY/HTTP_PROXY) is not an http:// or https:// URL keel can read");
    expect(again.stdout + again.stderr).not.toContain(PASSWORD);
  });
});

describe("HTTPS through the proxy (CONNECT) with a private CA from NODE_EXTRA_CA_CERTS", () => {
  let dir: string;
  let proxy: HttpProxy;
  let https: Server;
  let ws: TempWorkspace | undefined;
  beforeAll(async () => {
    // A CA and a certificate for MODEL_HOST it signed, made here with openssl.
    dir = mkdtempSync(join(tmpdir(), "keel-proxy-ca-"));
    const ssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
    const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
    ssl("req", "-x509", ...ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=keel test CA");
    ssl("req", ...ec, "-keyout", "server.key", "-out", "server.csr", "-subj", `/CN=${MODEL_HOST}`);
    writeFileSync(join(dir, "san.ext"), `subjectAltName=DNS:${MODEL_HOST}\n`);
    ssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.crt", "-days", "2", "-extfile", "san.ext");
    https = createHttpsServer({ key: readFileSync(join(dir, "server.key")), cert: readFileSync(join(dir, "server.crt")) }, (req, res) => {
      if (req.url === "/v1/models") res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data: [] }));
      else res.writeHead(404).end();
    });
    await new Promise<void>((done) => https.listen(0, "127.0.0.1", done));
    proxy = await startHttpProxy({ hosts: [MODEL_HOST], credentials: CREDENTIALS });
  });
  afterAll(async () => {
    https?.closeAllConnections();
    await new Promise((done) => https?.close(done));
    await proxy?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  afterEach(() => {
    ws?.cleanup();
    ws = undefined;
    proxy.requests.length = 0;
  });

  it("keel doctor reaches the endpoint through a CONNECT tunnel, verifies it against the private CA, and names the proxy without its credentials", async () => {
    ws = makeWorkspace({}, { git: true });
    const port = (https.address() as AddressInfo).port;
    ws.writeUserConfig({ model: { name: "m", baseUrl: `https://${MODEL_HOST}:${port}/v1` } });
    const env = behind(ws, proxy, { NODE_EXTRA_CA_CERTS: join(dir, "ca.crt"), NO_PROXY: "localhost" });
    const r = await runKeelProcess(["--json", "doctor"], { cwd: ws.root, env });
    const checks = r.json<{ checks: { name: string; status: string; message: string }[] }>().checks;
    const shown = `http://***@127.0.0.1:${proxy.port}`;
    expect(checks.find((c) => c.name === "model")).toMatchObject({ status: "ok", message: expect.stringContaining(`through the proxy ${shown}`) });
    expect(checks.find((c) => c.name === "proxy")).toMatchObject({ status: "ok", message: expect.stringContaining(`https:// through ${shown}`) });
    expect(checks.find((c) => c.name === "proxy")!.message).toContain("NO_PROXY localhost");
    expect(proxy.requests).toContainEqual(expect.objectContaining({ method: "CONNECT", target: `${MODEL_HOST}:${port}` }));
    expect(r.stdout + r.stderr).not.toContain(PASSWORD);
    expect(r.stdout + r.stderr).not.toContain("corp-user");

    // Without the CA the same tunnel's certificate is refused: the check above verified it.
    const untrusted = await runKeelProcess(["--json", "doctor"], { cwd: ws.root, env: { ...env, NODE_EXTRA_CA_CERTS: undefined } });
    const model = untrusted.json<{ checks: { name: string; status: string; message: string }[] }>().checks.find((c) => c.name === "model");
    expect(model).toMatchObject({ status: "fail", message: expect.stringContaining("through the proxy") });
    expect(untrusted.stdout + untrusted.stderr).not.toContain(PASSWORD);
  });
});
