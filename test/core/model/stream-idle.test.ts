import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModelError } from "../../../core/model/model-error.js";
import { resolveModelSpec } from "../../../core/model/model-spec.js";
import { openaiModel } from "../../../core/model/openai-model.js";
import { startOpenAIServer, type OpenAIServer } from "../../helpers/openai-server.js";
import { openAISpec, type OpenAISpec } from "../../helpers/model-spec.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace } from "../../helpers/temp-workspace.js";

let server: OpenAIServer;
const spec = (over: Partial<OpenAISpec> = {}): OpenAISpec => openAISpec(server.baseUrl, { name: "test-model", ...over });
const env = { KEEL_TEST_KEY: "sk-test" };
const request = { messages: [{ role: "user" as const, content: "x" }], tools: [], callIndex: 0 };

beforeAll(async () => {
  server = await startOpenAIServer();
});
afterAll(() => server.close());

describe("model.streamIdleTimeoutMs (openai backend, local server)", () => {
  it("a whole answer (stream: false) whose body never comes fails as a transient stall", async () => {
    server.push({ stall: "headers" });
    const err = await openaiModel(spec({ stream: false, streamIdleTimeoutMs: 1000 }), env)
      .complete(request)
      .catch((e: unknown) => e);
    // Old code: the SDK waited for the body for ever (its timeout ends at the headers).
    expect(err).toBeInstanceOf(ModelError);
    expect((err as ModelError).transient).toBe(true);
    expect((err as ModelError).message).toContain("nothing came for 1 s (model.streamIdleTimeoutMs is 1000)");
  });

  it("a call cancelled while its answer streams fails as cancelled: the part that came is no answer", async () => {
    server.push({ text: "half an answer", stall: "partial" });
    const abort = new AbortController();
    const result = await openaiModel(spec(), env)
      .complete(request, { signal: abort.signal, onText: () => abort.abort() })
      .catch((e: unknown) => e);
    // Old code: the SDK ends an aborted stream as if it were complete, and the call returned the part as the answer.
    expect(result).toBeInstanceOf(ModelError);
    expect((result as ModelError).message).toMatch(/cancelled/);
  });

  it("defaults to 300000 ms, caps a longer value at the longest timer, and refuses 0 with a message that says what to set", async () => {
    expect(resolveModelSpec({ model: { name: "m" } }, undefined, {}, "/w")).toMatchObject({ streamIdleTimeoutMs: 300_000 });
    expect(resolveModelSpec({ model: { name: "m", streamIdleTimeoutMs: 1e12 } } as never, undefined, {}, "/w")).toMatchObject({
      streamIdleTimeoutMs: 2 ** 31 - 1,
    });
    const ws = makeWorkspace({}, { git: true });
    try {
      ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl, streamIdleTimeoutMs: 0 } });
      const r = await runKeel(["run", "hi"], { cwd: ws.root, env: { ...ws.env, OPENAI_API_KEY: "k" } });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('"model.streamIdleTimeoutMs"');
      expect(r.stderr).toContain("there is no off switch");
      // "stream": "no" is no way to say false: it was taken as true
      ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl, stream: "no" } });
      const s = await runKeel(["run", "hi"], { cwd: ws.root, env: { ...ws.env, OPENAI_API_KEY: "k" } });
      expect(s.exitCode).toBe(2);
      expect(s.stderr).toContain('"model.stream"');
    } finally {
      ws.cleanup();
    }
  });
});
