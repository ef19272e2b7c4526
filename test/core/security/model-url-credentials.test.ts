import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { filesContaining } from "../../helpers/files-containing.js";
import { startOpenAIServer } from "../../helpers/openai-server.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const port = (server.address() as { port: number }).port;
  await new Promise((done) => server.close(done));
  return port;
}

describe("a model endpoint's credentials (user:key@host, ?api_key=) stay out of .keel and messages", () => {
  it("session.json, the session's events and the error keep the URL with *** in their place", async () => {
    ws = makeWorkspace({}, { git: true });
    const port = await closedPort();
    ws.writeUserConfig({ model: { name: "m", baseUrl: `http://proxyuser:URLPASS-SECRET@127.0.0.1:${port}/v1?api_key=QUERY-KEY-SECRET`, maxRetries: 0 } });
    const run = await runKeel(["--json", "run", "hi"], { cwd: ws.root, env: ws.env });
    expect(run.exitCode).toBe(1);
    expect(run.json().text).toContain(`Cannot reach the model at http://***:***@127.0.0.1:${port}/v1?api_key=***`);
    for (const secret of ["URLPASS-SECRET", "QUERY-KEY-SECRET", "proxyuser"]) {
      expect(run.stdout + run.stderr).not.toContain(secret);
      expect(filesContaining(ws.path(".keel"), secret)).toEqual([]);
    }
    // A resume takes the endpoint from the config, not from the file: it still reaches the same server.
    const id = run.json().sessionId as string;
    const resumed = await runKeel(["--json", "run", "--resume", id, "again"], { cwd: ws.root, env: ws.env });
    expect(resumed.json().text).toContain(`127.0.0.1:${port}`);
  });

  it("a provider that echoes the API key in its error message has it replaced by *** in the events and the output", async () => {
    const key = "sk-ECHOED-KEY-SECRET-0123456789";
    const server = await startOpenAIServer([{ status: 401, errorMessage: `Invalid API key: ${key}` }]);
    try {
      ws = makeWorkspace({}, { git: true });
      ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl, maxRetries: 0 } });
      const run = await runKeel(["--json", "run", "hi"], { cwd: ws.root, env: { ...ws.env, OPENAI_API_KEY: key } });
      expect(run.exitCode).toBe(1);
      expect(server.authorizations).toEqual([`Bearer ${key}`]);
      expect(run.json().text).toContain("rejected the API key (401: Invalid API key: ***)");
      expect(run.stdout + run.stderr).not.toContain(key);
      expect(filesContaining(ws.path(".keel"), key)).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it("model.headers reach the endpoint with every request, never session.json or the events, and are *** where the provider echoes them", async () => {
    const secret = "X-PROXY-KEY-SECRET-0123456789";
    const server = await startOpenAIServer([{ text: "hello" }, { status: 403, errorMessage: `proxy refused key ${secret}` }]);
    try {
      ws = makeWorkspace({}, { git: true });
      ws.writeUserConfig({
        model: { name: "m", baseUrl: server.baseUrl, maxRetries: 0, headers: { "X-Proxy-Key": secret, "HTTP-Referer": "https://keel.example" } },
      });
      const ok = await runKeel(["--json", "run", "hi"], { cwd: ws.root, env: ws.env });
      expect(ok.exitCode, ok.stderr).toBe(0);
      expect(server.headers[0]).toMatchObject({ "x-proxy-key": secret, "http-referer": "https://keel.example" });
      const failed = await runKeel(["--json", "run", "again"], { cwd: ws.root, env: ws.env });
      expect(failed.exitCode).toBe(1);
      expect(server.headers[1]).toMatchObject({ "x-proxy-key": secret });
      expect(failed.json().text).toContain("proxy refused key ***");
      expect(ok.stdout + ok.stderr + failed.stdout + failed.stderr).not.toContain(secret);
      expect(filesContaining(ws.path(".keel"), secret)).toEqual([]);
      // session.json names the headers it sent, not their values.
      expect(JSON.parse(ws.read(`.keel/sessions/${ok.json().sessionId}/session.json`)).model.headerNames).toEqual(["X-Proxy-Key", "HTTP-Referer"]);
      // A workspace's headers are a widening setting: ignored untrusted, with a warning naming the file.
      ws.write("keel.config.json", { model: { headers: { "X-Evil": "1" } } });
      const untrusted = await runKeel(["--json", "run", "third"], { cwd: ws.root, env: ws.env });
      expect(untrusted.stderr + untrusted.stdout).toContain("model.headers");
      expect(server.headers[2]?.["x-evil"]).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  it("a base URL with user info (a proxy behind basic auth) is used: Authorization: Basic goes with each request, the URL keel records has ***", async () => {
    const server = await startOpenAIServer([{ text: "through the proxy" }]);
    try {
      ws = makeWorkspace({}, { git: true });
      const withUser = server.baseUrl.replace("http://", "http://proxyuser:BASIC-PASS-SECRET@");
      ws.writeUserConfig({ model: { name: "m", baseUrl: withUser, maxRetries: 0 } });
      const run = await runKeel(["--json", "run", "hi"], { cwd: ws.root, env: ws.env });
      expect(run.exitCode, run.stdout + run.stderr).toBe(0);
      expect(run.json().text).toContain("through the proxy");
      expect(server.headers[0]?.authorization).toBe(`Basic ${Buffer.from("proxyuser:BASIC-PASS-SECRET").toString("base64")}`);
      const doctor = await runKeel(["--json", "doctor"], { cwd: ws.root, env: ws.env });
      const model = (doctor.json().checks as { name: string; status: string; message: string }[]).find((c) => c.name === "model")!;
      expect(model.status, model.message).toBe("ok");
      expect(server.urls.at(-1)).toBe("/v1/models");
      expect(filesContaining(ws.path(".keel"), "BASIC-PASS-SECRET")).toEqual([]);
      expect(run.stdout + doctor.stdout).not.toContain("BASIC-PASS-SECRET");
    } finally {
      await server.close();
    }
  });

  it("a provider that echoes the endpoint's URL credentials (user name, password as written and decoded, a long query value) has them *** too", async () => {
    const echoed = ["echo-user", "PASS!WORD-SECRET", "PASS%21WORD-SECRET", "LONG-QUERY-VALUE-SECRET-0123"];
    const server = await startOpenAIServer([{ status: 401, errorMessage: `denied: ${echoed.join(" ")}` }]);
    try {
      ws = makeWorkspace({}, { git: true });
      const baseUrl = `${server.baseUrl.replace("http://", "http://echo-user:PASS%21WORD-SECRET@")}?sig=LONG-QUERY-VALUE-SECRET-0123`;
      ws.writeUserConfig({ model: { name: "m", baseUrl, maxRetries: 0 } });
      const failed = await runKeel(["--json", "run", "hi"], { cwd: ws.root, env: ws.env });
      expect(failed.exitCode).toBe(1);
      expect(failed.json().text).toContain("denied: *** *** *** ***");
      for (const secret of echoed) {
        expect(failed.stdout + failed.stderr).not.toContain(secret);
        expect(filesContaining(ws.path(".keel"), secret)).toEqual([]);
      }
    } finally {
      await server.close();
    }
  });

  it('a header\'s credential echoed without its scheme (Authorization: Bearer X → "invalid token X") is *** too', async () => {
    const token = "PROXY-BEARER-SECRET-0123456789";
    const server = await startOpenAIServer([{ status: 401, errorMessage: `invalid token ${token}` }]);
    try {
      ws = makeWorkspace({}, { git: true });
      ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl, maxRetries: 0, headers: { Authorization: `Bearer ${token}` } } });
      const failed = await runKeel(["--json", "run", "hi"], { cwd: ws.root, env: ws.env });
      expect(failed.exitCode).toBe(1);
      expect(server.headers[0]).toMatchObject({ authorization: `Bearer ${token}` });
      expect(failed.json().text).toContain("invalid token ***");
      expect(failed.stdout + failed.stderr).not.toContain(token);
      expect(filesContaining(ws.path(".keel"), token)).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it("a provider that echoes the base URL's credentials (its ?api_key=, the Basic header made of user:pass) has them *** in the events and the output", async () => {
    const [user, pass, key] = ["proxyuser-0123", "URLPASS-SECRET-0123", "QUERY-KEY-SECRET-0123"];
    const basic = Buffer.from(`${user}:${pass}`).toString("base64");
    const server = await startOpenAIServer([{ status: 401, errorMessage: `bad credentials on /v1/chat/completions?api_key=${key}; auth was Basic ${basic}` }]);
    try {
      ws = makeWorkspace({}, { git: true });
      const baseUrl = `${server.baseUrl.replace("http://", `http://${user}:${pass}@`)}?api_key=${key}`;
      ws.writeUserConfig({ model: { name: "m", baseUrl, maxRetries: 0 } });
      const run = await runKeel(["--json", "run", "hi"], { cwd: ws.root, env: ws.env });
      expect(run.exitCode).toBe(1);
      expect(server.headers[0]?.authorization).toBe(`Basic ${basic}`);
      expect(run.json().text).toContain("(401: bad credentials on /v1/chat/completions?api_key=***; auth was ***)");
      for (const secret of [key, basic, pass, user]) {
        expect(run.stdout + run.stderr).not.toContain(secret);
        expect(filesContaining(ws.path(".keel"), secret)).toEqual([]);
      }
    } finally {
      await server.close();
    }
  });
});
