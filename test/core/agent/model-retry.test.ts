import { existsSync, readFileSync } from "node:fs";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { readEvents } from "../../../core/events.js";
import { ModelError } from "../../../core/model/model-error.js";
import type { ModelRetry } from "../../../core/model/model-retry.js";
import { resolveModelSpec } from "../../../core/model/model-spec.js";
import { openaiModel } from "../../../core/model/openai-model.js";
import { eventsOfType } from "../../helpers/events.js";
import { useOpenAIServer, type ServerReply } from "../../helpers/openai-server.js";
import { openAISpec, type OpenAISpec } from "../../helpers/model-spec.js";
import { KEEL_BIN, runKeel } from "../../helpers/run-cli.js";
import { sessionState } from "../../helpers/session-state.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const server = useOpenAIServer();
let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

const spec = (over: Partial<OpenAISpec> = {}): OpenAISpec => openAISpec(server.baseUrl, { maxRetries: 2, ...over });
const env = { KEEL_TEST_KEY: "k" };
const request = {
  messages: [{ role: "user" as const, content: "x" }],
  tools: [{ name: "write_file", description: "w", inputSchema: { type: "object" } }],
  callIndex: 0,
};
const NOW = { "retry-after": "0" };

/** Calls the model once (with its retries), collecting the retries it announces. */
async function call(over: Partial<OpenAISpec> = {}, signal?: AbortSignal, onRetry?: (r: ModelRetry) => void) {
  const retries: ModelRetry[] = [];
  const before = server.requests.length;
  const result = await openaiModel(spec(over), env)
    .complete(request, {
      signal,
      onRetry: (r) => {
        retries.push(r);
        onRetry?.(r);
      },
    })
    .catch((e: unknown) => e);
  return { result, retries, requests: server.requests.length - before };
}

/** A workspace whose user config points at the local server. */
function workspace(model: object = {}): { ws: TempWorkspace; env: NodeJS.ProcessEnv } {
  const w = makeWorkspace({}, { git: true });
  w.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl, apiKeyEnv: "KEEL_TEST_KEY", ...model } });
  ws = w;
  return { ws: w, env: { ...w.env, KEEL_TEST_KEY: "k" } };
}

describe("retries of a model call (real openai client, local server)", () => {
  it("a 503 then an answer: retried once, announced with the wait the server asked for", async () => {
    server.push({ status: 503, errorMessage: "overloaded", errorHeaders: NOW }, { text: "recovered" });
    const { result, retries, requests } = await call();
    expect(result).toMatchObject({ text: "recovered" });
    expect(requests).toBe(2);
    // Old code: the client retried on its own, unannounced.
    expect(retries).toEqual([{ attempt: 1, maxRetries: 2, delayMs: 0, message: expect.stringContaining("(503: overloaded)") }]);
  });

  it("retries are keel's alone: maxRetries 2 makes 3 requests in all, and the error says so", async () => {
    for (let i = 0; i < 3; i++) server.push({ status: 500, errorMessage: "boom", errorHeaders: { "retry-after-ms": "1" } });
    const { result, retries, requests } = await call();
    expect(requests).toBe(3);
    expect(retries.map((r) => r.attempt)).toEqual([1, 2]);
    expect(result).toBeInstanceOf(ModelError);
    expect((result as ModelError).message).toContain("(500: boom)");
    expect((result as ModelError).message).toContain("(keel tried 3 times)");
  });

  it("a stall before any output and a stream cut before any text (half a tool call) are retried; the answer after them is whole", async () => {
    server.push(
      { stall: "headers" },
      { toolCalls: [{ name: "write_file", arguments: { path: "a" } }], halfToolArguments: true, cut: "close" },
      { text: "whole" },
    );
    const { result, retries } = await call({ streamIdleTimeoutMs: 500 });
    expect(result).toMatchObject({ text: "whole", finishReason: "stop" });
    expect(retries.map((r) => r.message)).toEqual([expect.stringContaining("stopped sending"), expect.stringContaining("ended without finish_reason")]);
  });

  it("never after text was shown: a stream cut after text fails at once", async () => {
    server.push({ text: "half an answer", cut: "close" }, { text: "NOT ASKED FOR" });
    const retries: ModelRetry[] = [];
    const before = server.requests.length;
    const result = await openaiModel(spec(), env)
      .complete(request, { onText: () => {}, onRetry: (r) => retries.push(r) })
      .catch((e: unknown) => e);
    expect((result as ModelError).message).toContain("ended without finish_reason");
    expect(retries).toEqual([]);
    expect(server.requests.length - before).toBe(1);
    await call(); // takes the reply left over
  });

  it("not retried: a Retry-After over a minute, an exhausted quota, x-should-retry: false, a 400", async () => {
    const replies: ServerReply[] = [
      { status: 429, errorMessage: "slow down", errorHeaders: { "retry-after": "120" } },
      { status: 429, errorBody: { error: { message: "You exceeded your current quota", code: "insufficient_quota", type: "insufficient_quota" } } },
      { status: 503, errorMessage: "no", errorHeaders: { "x-should-retry": "false" } },
      { status: 400, errorMessage: "bad" },
    ];
    for (const reply of replies) {
      server.push(reply, { text: "NOT ASKED FOR" });
      const { result, retries, requests } = await call();
      expect(result, JSON.stringify(reply)).toBeInstanceOf(ModelError);
      expect(retries).toEqual([]);
      expect(requests).toBe(1);
      await call(); // takes the reply left over
    }
  });

  it("Ctrl-C while keel waits to retry ends the call at once, as cancelled", { timeout: 20_000 }, async () => {
    server.push({ status: 503, errorMessage: "busy", errorHeaders: { "retry-after": "50" } }, { text: "NOT ASKED FOR" });
    const abort = new AbortController();
    const { result, retries, requests } = await call({}, abort.signal, () => abort.abort());
    // Old code: the client slept the 50 s out (its wait takes no signal).
    expect(retries).toHaveLength(1);
    expect((result as ModelError).message).toBe("The model call was cancelled.");
    expect(requests).toBe(1);
    await call();
  });

  it("keel run: the retry is a model_retry event and a line on stderr; the answer after it is the only one recorded", async () => {
    const { ws, env } = workspace({ streamIdleTimeoutMs: 500 });
    server.push({ stall: "headers" }, { text: "the answer" });
    const r = await runKeel(["run", "--session", "rt", "hi"], { cwd: ws.root, env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe("the answer");
    expect(r.stderr).toMatch(/model call failed, retrying in \d+ms \(1 of 2\): The model endpoint /);
    const events = readEvents(ws.path(".keel", "sessions", "rt", "events.jsonl"));
    expect(eventsOfType(events, "model_retry")).toEqual([
      expect.objectContaining({ callIndex: 0, attempt: 1, maxRetries: 2, message: expect.stringContaining("stopped sending") }),
    ]);
    expect(eventsOfType(events, "model_error")).toEqual([]);
    const state = await sessionState(ws.root, "rt");
    expect(state.messages.filter((m) => m.role === "assistant").map((m) => m.content)).toEqual(["the answer"]);
    expect(readFileSync(ws.path(".keel", "sessions", "rt", "events.jsonl"), "utf8")).not.toContain("NOT ASKED FOR");
  });

  it("keel run: Ctrl-C (SIGINT) while keel waits to retry ends the run at once, cancelled, with nothing recorded", { timeout: 40_000 }, async () => {
    const { ws, env } = workspace();
    server.push({ status: 503, errorMessage: "busy", errorHeaders: { "retry-after": "55" } }, { text: "NOT ASKED FOR" });
    const child = execa(process.execPath, [KEEL_BIN, "--json", "run", "--session", "int", "hi"], { cwd: ws.root, env, reject: false, stdin: "ignore" });
    const log = ws.path(".keel", "sessions", "int", "events.jsonl");
    for (let i = 0; i < 600 && !(existsSync(log) && readFileSync(log, "utf8").includes('"model_retry"')); i++) await new Promise((r) => setTimeout(r, 50));
    child.kill("SIGINT");
    const r = await child;
    // Old code: no model_retry event, and the client slept out the 55 s before it saw the cancel.
    expect(JSON.parse(String(r.stdout))).toMatchObject({ reason: "cancelled" });
    const state = await sessionState(ws.root, "int");
    expect(state.messages.filter((m) => m.role === "assistant")).toEqual([]);
    await call(); // takes the reply left over
  });

  it("model.maxRetries: at most 10; a negative value is the default, 2", () => {
    const retries = (maxRetries: number) => (resolveModelSpec({ model: { name: "m", maxRetries } } as never, undefined, {}, "/w") as OpenAISpec).maxRetries;
    expect(retries(50)).toBe(10);
    expect(retries(-1)).toBe(2);
    expect(retries(0)).toBe(0);
  });
});
