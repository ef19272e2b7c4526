import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { readEvents } from "../../../core/events.js";
import { ModelError } from "../../../core/model/model-error.js";
import { openaiModel } from "../../../core/model/openai-model.js";
import { eventsOfType } from "../../helpers/events.js";
import { useOpenAIServer, type ServerReply } from "../../helpers/openai-server.js";
import { openAISpec, type OpenAISpec } from "../../helpers/model-spec.js";
import { runKeel } from "../../helpers/run-cli.js";
import { sessionState } from "../../helpers/session-state.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const server = useOpenAIServer();
let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

const spec = (): OpenAISpec => openAISpec(server.baseUrl);
const unstreamed = (maxRetries = 0): OpenAISpec => openAISpec(server.baseUrl, { stream: false, maxRetries });
const request = {
  messages: [{ role: "user" as const, content: "x" }],
  tools: [{ name: "write_file", description: "w", inputSchema: { type: "object" } }],
  callIndex: 0,
};
const WRITE = { name: "write_file", arguments: { path: "out.txt", content: "a long file, cut off in the middle" } };

/** A workspace whose user config points at the local server (no retries: each reply is one attempt). */
function workspace(model: object = {}): { ws: TempWorkspace; env: NodeJS.ProcessEnv } {
  const w = makeWorkspace({}, { git: true });
  w.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl, apiKeyEnv: "KEEL_TEST_KEY", maxRetries: 0, ...model } });
  ws = w;
  return { ws: w, env: { ...w.env, KEEL_TEST_KEY: "k" } };
}

describe("a streamed answer that ends without finish_reason (real openai client, local server)", () => {
  const cuts: [string, ServerReply][] = [
    ["text, then the stream ends (no [DONE])", { text: "half an answ", cut: "close" }],
    ["text, usage and [DONE], never a finish reason", { text: "half an answ", cut: "done" }],
    ["text, then the connection breaks", { text: "half an answ", cut: "reset" }],
    ["half a tool call's arguments, then the stream ends", { toolCalls: [WRITE], halfToolArguments: true, cut: "close" }],
    ["half a tool call's arguments, then the connection breaks", { toolCalls: [WRITE], halfToolArguments: true, cut: "reset" }],
  ];
  for (const [name, reply] of cuts)
    it(`${name}: a transient model error, not an answer`, async () => {
      server.push(reply);
      const err = await openaiModel(spec(), { KEEL_TEST_KEY: "k" })
        .complete(request)
        .catch((e: unknown) => e);
      // Old code: the half answer (or the call with truncated JSON arguments) came back as complete; a break, as "Cannot reach the model".
      expect(err).toBeInstanceOf(ModelError);
      expect((err as ModelError).transient).toBe(true);
      expect((err as ModelError).message).toMatch(/ended without finish_reason after \d+ chunks: the (stream ended|connection broke)/);
      expect((err as ModelError).message).toContain("keel did not record any of it");
    });

  const complete: [string, ServerReply, object][] = [
    ["finish_reason stop, then usage and [DONE] (OpenAI)", { text: "done" }, { text: "done", finishReason: "stop" }],
    ["finish_reason tool_calls", { toolCalls: [WRITE] }, { finishReason: "tool_calls", toolCalls: [expect.objectContaining({ name: "write_file" })] }],
    [
      "finish_reason with the last content chunk, no usage (vLLM, llama.cpp, Ollama)",
      { text: "done", finishWithLastDelta: true, noUsage: true },
      { text: "done", finishReason: "stop" },
    ],
    ["finish_reason with the last tool-call chunk", { toolCalls: [WRITE], finishWithLastDelta: true }, { finishReason: "tool_calls" }],
    ["finish_reason length", { text: "cut by max_tok", finishReason: "length" }, { text: "cut by max_tok", finishReason: "length" }],
    ["finish_reason content_filter", { text: "", finishReason: "content_filter" }, { text: "", finishReason: "content_filter" }],
  ];
  for (const [name, reply, expected] of complete)
    it(`${name}: a complete answer`, async () => {
      server.push(reply);
      expect(await openaiModel(spec(), { KEEL_TEST_KEY: "k" }).complete(request)).toMatchObject(expected);
    });

  const bodyCuts: [string, ServerReply][] = [
    ["half the JSON body, then the response ends", { text: "an answer cut in its middle", cut: "close" }],
    ["half the JSON body, then the connection breaks", { toolCalls: [WRITE], cut: "reset" }],
  ];
  for (const [name, reply] of bodyCuts)
    it(`not streamed, ${name}: a transient model error, not an answer, retried`, async () => {
      server.push(reply);
      const err = await openaiModel(unstreamed(), { KEEL_TEST_KEY: "k" })
        .complete(request)
        .catch((e: unknown) => e);
      // Old code: "The model call to … failed: Unterminated string in JSON …" (or "terminated"), not transient.
      expect(err).toBeInstanceOf(ModelError);
      expect((err as ModelError).transient).toBe(true);
      expect((err as ModelError).message).toMatch(
        /was cut off: its body broke off or was not complete JSON \((it did not parse as JSON|.*terminated.*)\), so keel did not record any of it/,
      );
      server.push(reply, { text: "whole" });
      expect(await openaiModel(unstreamed(1), { KEEL_TEST_KEY: "k" }).complete(request)).toMatchObject({ text: "whole" });
    });

  const notJson: [string, ServerReply["rawBody"], RegExp][] = [
    [
      "an HTML page sent as JSON (a proxy's error page)",
      { contentType: "application/json", body: "<html><body>502 Bad Gateway. Authorization: Bearer k-secret-1234</body></html>" },
      /answered 200 with an HTML or XML page \(\d+ bytes, content type application\/json\)/,
    ],
    [
      "an HTML page (a login page)",
      { contentType: "text/html; charset=utf-8", body: "<!doctype html><p>Sign in k-secret-1234</p>" },
      /an HTML or XML page .*content type text\/html\)/,
    ],
    ["plain text", { contentType: "text/plain", body: "Bad gateway k-secret-1234" }, /text that is not JSON \(25 bytes, content type text\/plain\)/],
    [
      "JSON that does not parse, as long as its Content-Length says",
      { contentType: "application/json", body: '{"choices": [k-secret-1234', contentLength: true },
      /text that is not JSON \(26 bytes, content type application\/json\)/,
    ],
  ];
  for (const [name, rawBody, message] of notJson)
    it(`not streamed, a whole 200 body that is not JSON (${name}): an error at once, not retried, the body not quoted`, async () => {
      const before = server.requests.length;
      server.push({ rawBody }, { text: "never asked for" });
      const err = await openaiModel(unstreamed(2), { KEEL_TEST_KEY: "k" })
        .complete(request)
        .catch((e: unknown) => e);
      // Old code: taken as a cut answer (transient) and asked again: 2 requests, the second answered; or "returned no choices".
      expect(server.requests.length - before).toBe(1);
      expect(err).toBeInstanceOf(ModelError);
      expect((err as ModelError).transient).toBe(false);
      expect((err as ModelError).message).toMatch(message);
      expect((err as ModelError).message).toContain('Check "model.baseUrl"');
      expect((err as ModelError).message).not.toContain("k-secret-1234");
      // the reply meant for a retry was not used: the next call gets it
      expect(await openaiModel(unstreamed(), { KEEL_TEST_KEY: "k" }).complete(request)).toMatchObject({ text: "never asked for" });
    });

  it("not streamed, the same JSON that does not parse without a Content-Length (chunked): cut mid-JSON, retried", async () => {
    const before = server.requests.length;
    server.push({ rawBody: { contentType: "application/json", body: '{"choices": [k-secret-1234' } }, { text: "whole" });
    expect(await openaiModel(unstreamed(1), { KEEL_TEST_KEY: "k" }).complete(request)).toMatchObject({ text: "whole" });
    expect(server.requests.length - before).toBe(2);
  });

  it("not streamed, a whole answer without finish_reason (KoboldCpp): taken as complete, not as a cut", async () => {
    server.push({ text: "all of it", toolCalls: [WRITE], cut: "done" });
    const res = await openaiModel(unstreamed(), { KEEL_TEST_KEY: "k" }).complete(request);
    expect(res).toMatchObject({ text: "all of it", toolCalls: [expect.objectContaining({ name: "write_file", arguments: JSON.stringify(WRITE.arguments) })] });
    expect(res.finishReason).toBeUndefined();
  });

  it("keel run: a cut tool call is neither recorded nor run; the turn ends with the transient error and the session resumes", async () => {
    const { ws, env } = workspace();
    server.push({ text: "Writing it. ", toolCalls: [WRITE], halfToolArguments: true, cut: "close" });
    const r = await runKeel(["--yes", "run", "--session", "cut", "write out.txt"], { cwd: ws.root, env });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("ended without finish_reason");
    // Old code: write_file ran with the truncated arguments (answered "not valid JSON"), and the half message was recorded.
    const state = await sessionState(ws.root, "cut");
    expect(state.messages.filter((m) => m.role === "assistant" || m.role === "tool")).toEqual([]);
    expect(state.pending).toBeNull();
    expect(state.usage.modelCalls).toBe(0);
    const events = readEvents(ws.path(".keel", "sessions", "cut", "events.jsonl"));
    expect(eventsOfType(events, "model_error")).toEqual([expect.objectContaining({ transient: true })]);
    expect(eventsOfType(events, "tool_intent")).toEqual([]);

    server.push({ toolCalls: [WRITE] }, { text: "written" });
    const again = await runKeel(["--yes", "--json", "run", "--resume", "cut", "go on"], { cwd: ws.root, env });
    expect(again.json<{ reason: string; text: string }>()).toMatchObject({ reason: "answer", text: "written" });
    expect(existsSync(ws.path("out.txt"))).toBe(true);
  });

  it("keel run: a response cut by the output limit (finish_reason length) runs no call with cut-off arguments, says why, and goes on", async () => {
    const { ws, env } = workspace({ maxOutputTokens: 300 });
    server.push({ toolCalls: [WRITE], halfToolArguments: true, finishReason: "length" }, { text: "I will write it in parts." });
    const r = await runKeel(["--yes", "run", "--session", "len", "write out.txt"], { cwd: ws.root, env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(ws.path("out.txt"))).toBe(false);
    // Old code: "The arguments of write_file are not valid JSON (…). Send a JSON object.": nothing about the limit.
    const tool = (await sessionState(ws.root, "len")).messages.find((m) => m.role === "tool");
    expect(tool?.content).toContain("Your response reached the output limit (300 tokens) while writing the arguments of write_file");
    expect(r.stderr).toContain("reached its output limit (model.maxOutputTokens) and was cut off");
  });

  it("keel run: a call cut by the output limit before any of its arguments (finish_reason length) is not run as a call without arguments", async () => {
    const { ws, env } = workspace({ maxOutputTokens: 300 });
    mkdirSync(ws.path("plugins", "demo"), { recursive: true });
    writeFileSync(
      ws.path("plugins", "demo", "plugin.json"),
      JSON.stringify({ name: "demo", virtual_tools: [{ name: "deploy", response_template: "DEPLOYED" }] }),
    );
    server.push({ toolCalls: [{ name: "deploy", arguments: "" }], finishReason: "length" }, { text: "I will call it again." });
    const r = await runKeel(["--yes", "run", "--session", "len0", "deploy"], { cwd: ws.root, env });
    expect(r.exitCode, r.stderr).toBe(0);
    // Old code: the empty arguments became {} and deploy ran (its answer DEPLOYED).
    const tool = (await sessionState(ws.root, "len0")).messages.find((m) => m.role === "tool");
    expect(tool?.content).not.toContain("DEPLOYED");
    expect(tool?.content).toContain("Your response reached the output limit (300 tokens) while writing the arguments of deploy");
    // The call's arguments are sent back as a JSON object: the next request was answered.
    expect(r.stdout).toContain("I will call it again.");
  });
});
