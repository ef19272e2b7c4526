import { afterEach, describe, expect, it, vi } from "vitest";
import { startHttpProxy, type HttpProxy } from "../../helpers/http-proxy.js";
import { useOpenAIServer } from "../../helpers/openai-server.js";
import { runKeel, runKeelProcess } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

// The proxy's own answer to the model call (HTTPS_PROXY/HTTP_PROXY set) is said as the proxy's, never as the provider's.
const PASSWORD = "proxy-pw-Rk42";
const server = useOpenAIServer();
let ws: TempWorkspace | undefined;
let proxy: HttpProxy | undefined;
afterEach(async () => {
  ws?.cleanup();
  await proxy?.close();
});

/** `keel --json run` (in-process, or as a process) with the model at `baseUrl`, behind `p` (credentials in its URL). */
async function runBehind(p: HttpProxy, baseUrl: string, process = false, maxRetries = 0) {
  ws = makeWorkspace({}, { git: true });
  ws.writeUserConfig({ model: { name: "m", baseUrl, maxRetries } });
  const env: NodeJS.ProcessEnv = { ...ws.env, OPENAI_API_KEY: "k" };
  for (const name of ["http_proxy", "https_proxy", "no_proxy", "all_proxy"]) {
    delete env[name];
    delete env[name.toUpperCase()];
  }
  const url = `http://corp-user:${PASSWORD}@127.0.0.1:${p.port}`;
  const opts = { cwd: ws.root, env: { ...env, HTTP_PROXY: url, HTTPS_PROXY: url } };
  const r = await (process ? runKeelProcess : runKeel)(["--json", "run", "hi"], opts);
  expect(r.stdout + r.stderr).not.toContain(PASSWORD);
  const out = r.json<{ message?: string }>();
  return { exitCode: r.exitCode, message: String(out.message) };
}

describe("the proxy's own refusal of the model call", () => {
  it("403 to a plain-HTTP request (its access rules, an HTML page): the proxy, named without credentials, and what to do (keel run as a process)", async () => {
    proxy = await startHttpProxy({ refuse: { status: 403 } });
    const r = await runBehind(proxy, "http://model.keel.test/v1", true);
    // Old code: `The provider at http://model.keel.test/v1 refused access to model "m" (403: an HTML page of 67 bytes). Check the key's permissions …`
    expect(r.exitCode).toBe(1);
    expect(r.message).toContain(
      `The proxy http://***@127.0.0.1:${proxy.port} answered 403 to the model call to http://model.keel.test/v1 with a page of its own, not the provider.`,
    );
    expect(r.message).toContain("Its access rules do not allow this host");
    expect(r.message).not.toContain("key's permissions");
  });

  it("403 and 407 to CONNECT (an https endpoint): the tunnel was refused, said so", async () => {
    proxy = await startHttpProxy({ refuse: { status: 403 } });
    const forbidden = await runBehind(proxy, "https://model.keel.test/v1");
    // Old code: `Cannot reach the model … (Proxy response (403) !== 200 when HTTP Tunneling)`, transient, advice about credentials.
    expect(forbidden.message).toContain(
      `The proxy http://***@127.0.0.1:${proxy.port} refused to open a tunnel to https://model.keel.test/v1 (403), not the provider.`,
    );
    expect(forbidden.message).not.toContain("!== 200");
    await proxy.close();
    proxy = await startHttpProxy({ credentials: "corp-user:other" });
    const unauthorized = await runBehind(proxy, "https://model.keel.test/v1");
    expect(unauthorized.message).toContain("refused to open a tunnel to https://model.keel.test/v1 (407)");
    expect(unauthorized.message).toContain("put the right user and password in the proxy URL");
  });

  it("502 from the proxy (it could not reach the endpoint), plain HTTP and CONNECT: the proxy's, and worth asking again", async () => {
    proxy = await startHttpProxy({ refuse: { status: 502, body: "" } });
    for (const base of ["http://model.keel.test/v1", "https://model.keel.test/v1"]) {
      const r = await runBehind(proxy, base);
      // Old code (plain HTTP): `The provider at http://model.keel.test/v1 failed (502: …). Retry later.`
      expect(r.message).toMatch(
        new RegExp(`^The run failed: The proxy http://\\*\\*\\*@127\\.0\\.0\\.1:${proxy.port} (answered 502|refused to open a tunnel)`),
      );
      expect(r.message).toContain("It could not get an answer from the endpoint");
    }
  });

  it("a plain-HTTP proxy that refuses the credentials (407) is not asked again: maxRetries does not help there", async () => {
    proxy = await startHttpProxy({ credentials: "corp-user:other" });
    const r = await runBehind(proxy, "http://model.keel.test/v1", false, 2);
    expect(r.message).toContain("(Proxy Authentication Required (407))");
    // Old code: retried like a connection error (three requests with maxRetries 2).
    expect(proxy.requests).toHaveLength(1);
  });

  it("a provider's own JSON error that passes through a plain-HTTP proxy is still the provider's", async () => {
    proxy = await startHttpProxy();
    server.push({ status: 403, errorMessage: "model m is not enabled for this key" });
    const r = await runBehind(proxy, server.baseUrl);
    expect(r.message).toContain(`The provider at ${server.baseUrl} refused access to model "m" (403: model m is not enabled for this key)`);
  });
});

describe("the proxy's connections end with the host", () => {
  it("after keel run (in-process) ends, the proxy sees keel's connection closed, not left idle for reuse", async () => {
    proxy = await startHttpProxy({ hosts: ["model.keel.test"] });
    server.push({ text: "through the proxy" });
    const r = await runBehind(proxy, `http://model.keel.test:${new URL(server.baseUrl).port}/v1`);
    expect(r.exitCode).toBe(0);
    expect(proxy.requests.some((q) => q.target.endsWith("/v1/chat/completions"))).toBe(true);
    // Old code: undici kept the connection for reuse, open as long as the proxy's keep-alive (60 s) lets it.
    await vi.waitFor(() => expect(proxy!.openConnections()).toBe(0), { timeout: 15_000, interval: 50 });
  });
});
