import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getEventListeners } from "node:events";
import { openaiModel } from "../../../core/model/openai-model.js";
import { resolveModelSpec, type ModelSpec } from "../../../core/model/model-spec.js";
import { ToolNameMap } from "../../../core/model/tool-names.js";
import type { ChatMessage } from "../../../core/model/model-types.js";
import { normalizeToolSchema } from "../../../core/model/tool-schema.js";
import { scriptedModel } from "../../../core/model/scripted-model.js";
import { ModelError } from "../../../core/model/model-error.js";
import { startOpenAIServer, type OpenAIServer } from "../../helpers/openai-server.js";
import { makeWorkspace } from "../../helpers/temp-workspace.js";
import { runKeel } from "../../helpers/run-cli.js";

type OpenAISpec = Extract<ModelSpec, { kind: "openai" }>;
let server: OpenAIServer;
const spec = (over: Partial<OpenAISpec> = {}): OpenAISpec => ({
  kind: "openai",
  name: "test-model",
  baseUrl: server.baseUrl,
  apiKeyEnv: "KEEL_TEST_KEY",
  contextWindow: 8000,
  maxOutputTokens: 256,
  timeoutMs: 5000,
  streamIdleTimeoutMs: 60_000,
  maxRetries: 2,
  stream: true,
  ...over,
});
const env = { KEEL_TEST_KEY: "sk-test" };
const readTool = {
  name: "read_file",
  description: "Read a file",
  inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};

beforeAll(async () => {
  server = await startOpenAIServer();
});
afterAll(() => server.close());

describe("openai backend against a local OpenAI-compatible server", () => {
  it("streams text and assembles tool calls from SSE chunks", async () => {
    server.push({ text: "Let me read it, please.", toolCalls: [{ id: "c1", name: "read_file", arguments: { path: "a.txt" } }] });
    const deltas: string[] = [];
    const res = await openaiModel(spec(), env).complete(
      { messages: [{ role: "user", content: "hi" }], tools: [readTool], callIndex: 0 },
      { onText: (d) => deltas.push(d) },
    );
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("Let me read it, please.");
    expect(res.toolCalls).toEqual([{ id: "c1", name: "read_file", arguments: '{"path":"a.txt"}' }]);
    const req = server.requests.at(-1)!;
    expect(req.stream).toBe(true);
    expect(req.tools?.[0]?.function.name).toBe("read_file");
    expect(res.usage).toEqual({ inputTokens: 100, outputTokens: 10 });
  });

  it("a base URL with a query (Azure's ?api-version=) keeps it after the path of every request; keel doctor's /models check too", async () => {
    server.push({ text: "ok" });
    const res = await openaiModel(spec({ baseUrl: `${server.baseUrl}?api-version=2024-10-21` }), env).complete({
      messages: [{ role: "user", content: "hi" }],
      tools: [],
      callIndex: 0,
    });
    expect(res.text).toBe("ok");
    expect(server.urls.at(-1)).toBe("/v1/chat/completions?api-version=2024-10-21");
    const ws = makeWorkspace({}, { git: true });
    try {
      ws.writeUserConfig({ model: { name: "test-model", baseUrl: `${server.baseUrl}?api-version=2024-10-21` } });
      const doctor = await runKeel(["--json", "doctor"], { cwd: ws.root, env: ws.env });
      const model = (doctor.json().checks as { name: string; status: string; message: string }[]).find((c) => c.name === "model")!;
      expect(model.status, model.message).toBe("ok");
      expect(server.urls.at(-1)).toBe("/v1/models?api-version=2024-10-21");
    } finally {
      ws.cleanup();
    }
  });

  it("keeps parallel streamed calls apart when the server sends no index (Gemini) or index 0 for each (Ollama)", async () => {
    for (const toolCallIndex of ["omitted", "zero", "position"] as const) {
      server.push({
        toolCallIndex,
        toolCalls: [
          { id: "c1", name: "read_file", arguments: { path: "a.txt" } },
          { id: "c2", name: "read_file", arguments: { path: "b.txt" } },
          { id: "c3", name: "list_dir", arguments: {} },
        ],
      });
      const res = await openaiModel(spec(), env).complete({ messages: [{ role: "user", content: "hi" }], tools: [readTool], callIndex: 0 }, {});
      expect(res.toolCalls, toolCallIndex).toEqual([
        { id: "c1", name: "read_file", arguments: '{"path":"a.txt"}' },
        { id: "c2", name: "read_file", arguments: '{"path":"b.txt"}' },
        { id: "c3", name: "list_dir", arguments: "{}" },
      ]);
    }
  });

  it("the same tool twice from a server that sends neither index nor ids stays two calls, streamed or not; ids it leaves out are filled in", async () => {
    for (const stream of [true, false]) {
      server.push({
        toolCallIndex: "omitted",
        toolCallIds: "omitted",
        toolCalls: [
          { name: "read_file", arguments: { path: "a.txt" } },
          { name: "read_file", arguments: { path: "b.txt" } },
        ],
      });
      const res = await openaiModel(spec({ stream }), env).complete({ messages: [{ role: "user", content: "hi" }], tools: [readTool], callIndex: 4 }, {});
      expect(res.toolCalls, `stream: ${stream}`).toEqual([
        { id: "call_4_0", name: "read_file", arguments: '{"path":"a.txt"}' },
        { id: "call_4_1", name: "read_file", arguments: '{"path":"b.txt"}' },
      ]);
    }
  });

  it("a server that sends a new id with every delta of a call (Poolside) gives one call, with its first id", async () => {
    server.push({ toolCallIds: "per-delta", toolCalls: [{ id: "p1", name: "read_file", arguments: { path: "a.txt" } }] });
    const res = await openaiModel(spec(), env).complete({ messages: [{ role: "user", content: "hi" }], tools: [readTool], callIndex: 0 }, {});
    expect(res.toolCalls).toEqual([{ id: "p1", name: "read_file", arguments: '{"path":"a.txt"}' }]);
  });

  it("a server that repeats the tool name with every delta (MiniMax on NVIDIA NIM, Fireworks) gives each call its name once", async () => {
    for (const toolCallIndex of ["position", "omitted"] as const) {
      server.push({
        toolCallIndex,
        repeatToolName: true,
        toolCalls: [
          { id: "c1", name: "read_file", arguments: { path: "a.txt" } },
          { id: "c2", name: "read_file", arguments: { path: "b.txt" } },
        ],
      });
      const res = await openaiModel(spec(), env).complete({ messages: [{ role: "user", content: "hi" }], tools: [readTool], callIndex: 0 }, {});
      expect(res.toolCalls, toolCallIndex).toEqual([
        { id: "c1", name: "read_file", arguments: '{"path":"a.txt"}' },
        { id: "c2", name: "read_file", arguments: '{"path":"b.txt"}' },
      ]);
    }
  });

  it("takes tool calls whose arguments are a JSON object and that lack `type` (llama-server, TGI), streamed or not", async () => {
    for (const stream of [true, false]) {
      server.push({ looseToolCalls: true, toolCalls: [{ id: "c1", name: "read_file", arguments: { path: "a.txt", lines: [1, 2] } }] });
      const res = await openaiModel(spec({ stream }), env).complete({ messages: [{ role: "user", content: "hi" }], tools: [readTool], callIndex: 0 }, {});
      expect(res.toolCalls, `stream: ${stream}`).toEqual([{ id: "c1", name: "read_file", arguments: '{"path":"a.txt","lines":[1,2]}' }]);
    }
  });

  it("a model that refuses max_tokens (OpenAI's o-series and gpt-5) is asked again with max_completion_tokens, and so is every later call", async () => {
    const model = openaiModel(spec({ maxRetries: 0 }), env);
    const ask = () => model.complete({ messages: [{ role: "user", content: "hi" }], tools: [], callIndex: 0, maxOutputTokens: 77 }, {});
    const before = server.requests.length;
    server.push({ refuseMaxTokens: true, text: "first" }, { refuseMaxTokens: true, text: "second" });
    expect((await ask()).text).toBe("first");
    expect((await ask()).text).toBe("second");
    const sent = server.requests.slice(before);
    // one refused request, then only the field the model takes
    expect(sent.map((r) => [r.max_tokens, r.max_completion_tokens])).toEqual([
      [77, undefined],
      [undefined, 77],
      [undefined, 77],
    ]);
  });

  it("a limit that is too large (vLLM's 400 names both fields) is an error, not a reason to switch fields", async () => {
    const model = openaiModel(spec({ maxRetries: 0 }), env);
    const before = server.requests.length;
    server.push({ limitTooLarge: true }, { text: "after" });
    await expect(model.complete({ messages: [{ role: "user", content: "hi" }], tools: [], callIndex: 0 }, {})).rejects.toThrow(/is too large/);
    expect((await model.complete({ messages: [{ role: "user", content: "hi" }], tools: [], callIndex: 1 }, {})).text).toBe("after");
    expect(server.requests.slice(before).map((r) => "max_tokens" in r)).toEqual([true, true]);
  });

  it("a server that refuses a user message right after a tool result (Mistral) is asked again with a short assistant message between, and so is every later call", async () => {
    const model = openaiModel(spec({ maxRetries: 0 }), env);
    const messages: ChatMessage[] = [
      { role: "user", content: "read a.txt" },
      { role: "assistant", content: "", toolCalls: [{ id: "t1", name: "read_file", arguments: '{"path":"a.txt"}' }] },
      { role: "tool", toolCallId: "t1", name: "read_file", content: "AAA" },
      { role: "user", content: "[guidance] check b.txt too" },
    ];
    const before = server.requests.length;
    server.push({ refuseUserAfterTool: true, text: "first" }, { refuseUserAfterTool: true, text: "second" });
    expect((await model.complete({ messages, tools: [readTool], callIndex: 0 }, {})).text).toBe("first");
    expect((await model.complete({ messages, tools: [readTool], callIndex: 1 }, {})).text).toBe("second");
    const roles = server.requests.slice(before).map((r) => r.messages.map((m) => m.role).join(","));
    expect(roles).toEqual(["user,assistant,tool,user", "user,assistant,tool,assistant,user", "user,assistant,tool,assistant,user"]);
  });

  it("error bodies in other shapes than OpenAI's (Mistral's, Gemini's list) still give their message, not '400 status code (no body)'", async () => {
    const model = openaiModel(spec({ maxRetries: 0 }), env);
    const ask = () => model.complete({ messages: [{ role: "user", content: "hi" }], tools: [], callIndex: 0 }, {});
    server.push({
      status: 400,
      errorBody: { object: "error", message: "Unexpected role 'tool' after role 'user'", type: "invalid_request_message_order", code: "3230" },
    });
    await expect(ask()).rejects.toThrow(/\(400: Unexpected role 'tool' after role 'user'\)/);
    server.push({ status: 400, errorBody: [{ error: { code: 400, message: "Function call is missing a thought_signature", status: "INVALID_ARGUMENT" } }] });
    await expect(ask()).rejects.toThrow(/\(400: Function call is missing a thought_signature\)/);
    server.push({ status: 422, errorBody: { detail: "model 'x' not loaded" } });
    await expect(ask()).rejects.toThrow(/\(422: model 'x' not loaded\)/);
  });

  it("OpenAI's own API is sent max_completion_tokens from the first call; any other server max_tokens", async () => {
    const { firstTokenLimitField } = await import("../../../core/model/provider-quirks.js");
    expect(firstTokenLimitField(undefined)).toBe("max_completion_tokens");
    expect(firstTokenLimitField("https://api.openai.com/v1")).toBe("max_completion_tokens");
    expect(firstTokenLimitField(server.baseUrl)).toBe("max_tokens");
    expect(firstTokenLimitField("not a url")).toBe("max_tokens");
  });

  it("sends the key of the variable model.apiKeyEnv names, and never OPENAI_API_KEY in its place", async () => {
    server.push({ text: "one" }, { text: "two" });
    await openaiModel(spec(), { KEEL_TEST_KEY: "sk-test", OPENAI_API_KEY: "sk-openai-secret" }).complete({
      messages: [{ role: "user", content: "hi" }],
      tools: [],
      callIndex: 0,
    });
    expect(server.authorizations.at(-1)).toBe("Bearer sk-test");
    // The configured variable is unset: this endpoint gets no key rather than the user's OpenAI key.
    await openaiModel(spec(), { OPENAI_API_KEY: "sk-openai-secret" }).complete({ messages: [{ role: "user", content: "hi" }], tools: [], callIndex: 0 });
    expect(server.authorizations.at(-1)).not.toContain("sk-openai-secret");
    // Without a base URL (the hosted OpenAI API) a missing key is an error naming the variable.
    expect(() => openaiModel(spec({ baseUrl: undefined }), { OPENAI_API_KEY: "sk-openai-secret" })).toThrow(/set KEEL_TEST_KEY/);
  });

  it("works without streaming", async () => {
    server.push({ text: "plain answer" });
    const res = await openaiModel(spec({ stream: false }), env).complete({ messages: [{ role: "user", content: "hi" }], tools: [], callIndex: 0 });
    expect(res.text).toBe("plain answer");
    expect(server.requests.at(-1)!.stream).toBeFalsy();
  });

  it("retries a transient 503 and then succeeds", async () => {
    const before = server.requests.length;
    server.push({ status: 503, errorMessage: "overloaded" }, { text: "recovered" });
    const res = await openaiModel(spec(), env).complete({ messages: [{ role: "user", content: "x" }], tools: [], callIndex: 0 });
    expect(res.text).toBe("recovered");
    expect(server.requests.length - before).toBe(2);
  });

  it("a 200 that is not a completion (HTML, or JSON without choices) is an error, not an empty answer", async () => {
    server.push({ rawBody: { contentType: "text/html", body: "<html><body>Welcome to nginx!</body></html>" } });
    const err = await openaiModel(spec(), env)
      .complete({ messages: [{ role: "user", content: "hi" }], tools: [], callIndex: 0 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect((err as Error).message).toMatch(/answered 200 without a chat-completions stream/);
    server.push({ rawBody: { contentType: "text/html", body: "<html>not json</html>" } });
    const plain = await openaiModel(spec({ stream: false }), env)
      .complete({ messages: [{ role: "user", content: "hi" }], tools: [], callIndex: 0 })
      .catch((e: unknown) => e);
    expect(plain).toBeInstanceOf(ModelError);
    expect((plain as Error).message).toMatch(/answered 200 with an HTML or XML page/);
    server.push({ rawBody: { contentType: "application/json", body: '{"object": "list", "data": []}' } });
    const other = await openaiModel(spec({ stream: false }), env)
      .complete({ messages: [{ role: "user", content: "hi" }], tools: [], callIndex: 0 })
      .catch((e: unknown) => e);
    expect((other as Error).message).toMatch(/returned no choices/);
  });

  it("turns a 401 into a message naming the key variable", async () => {
    server.push({ status: 401, errorMessage: "bad key" });
    const err = await openaiModel(spec(), env)
      .complete({ messages: [{ role: "user", content: "x" }], tools: [], callIndex: 0 })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect(err.message).toMatch(/KEEL_TEST_KEY/);
    expect(err.message).toMatch(/401/);
  });

  it("times out a slow response with a message about model.timeoutMs", async () => {
    server.push({ delayMs: 120_000, text: "late" });
    const err = await openaiModel(spec({ timeoutMs: 300, maxRetries: 0 }), env)
      .complete({ messages: [{ role: "user", content: "x" }], tools: [], callIndex: 0 })
      .catch((e) => e);
    expect(err.message).toMatch(/timeoutMs/);
  });

  it("honours an AbortSignal", async () => {
    // The reply would come long after the test's own timeout: only the abort can end this call.
    server.push({ delayMs: 120_000, text: "late" });
    const err = await openaiModel(spec(), env)
      .complete({ messages: [{ role: "user", content: "x" }], tools: [], callIndex: 0 }, { signal: AbortSignal.timeout(200) })
      .catch((e) => e);
    expect(err.message).toMatch(/cancelled/);
  });

  it("leaves no listener on a long-lived signal after its calls (no pile-up over a session's steps)", async () => {
    const session = new AbortController();
    const model = openaiModel(spec(), env);
    for (let i = 0; i < 12; i++) {
      server.push({ text: `step ${i}` });
      const res = await model.complete({ messages: [{ role: "user", content: "x" }], tools: [], callIndex: i }, { signal: session.signal });
      expect(res.text).toBe(`step ${i}`);
    }
    expect(getEventListeners(session.signal, "abort")).toHaveLength(0);
  });

  it("maps long and dotted tool names reversibly and normalises schemas", async () => {
    const long = "mcp__" + "very_long_server_name_".repeat(4) + "tool.with.dots";
    server.push({ text: "", toolCalls: [{ name: new ToolNameMap([long]).wire(long), arguments: {} }] });
    const res = await openaiModel(spec(), env).complete({
      messages: [{ role: "user", content: "x" }],
      tools: [
        {
          name: long,
          description: "d",
          inputSchema: { $schema: "http://json-schema.org/draft-07/schema#", properties: { a: { type: "string", format: "uri" } }, required: ["a", "missing"] },
        },
      ],
      callIndex: 0,
    });
    const sent = server.requests.at(-1)!.tools![0]!.function;
    expect(sent.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(sent.parameters).toEqual({ type: "object", properties: { a: { type: "string" } }, required: ["a"] });
    expect(res.toolCalls[0]!.name).toBe(long);
  });

  it("re-sends a growing history byte-exact from its cache, and re-encodes a replaced message and a remapped tool name", async () => {
    const model = openaiModel(spec(), env);
    const dotted = { ...readTool, name: "files.read" };
    const system: ChatMessage = { role: "system", content: 'sys \u2028 ünïcødé 🚀 "quoted"' };
    const user: ChatMessage = { role: "user", content: "read it" };
    const call: ChatMessage = { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "files.read", arguments: '{"path":"a"}' }] };
    const output: ChatMessage = { role: "tool", toolCallId: "c1", name: "files.read", content: "line 1\nline 2 ✓" };
    const send = async (messages: ChatMessage[], tools = [dotted]) => {
      server.push({ text: "ok" });
      await model.complete({ messages, tools, callIndex: 0 });
      return server.requests.at(-1)!;
    };
    const wireCall = (name: string) => ({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c1", type: "function", function: { name, arguments: '{"path":"a"}' } }],
    });
    const first = await send([system, user]);
    expect(first.messages).toEqual([system, user]);
    const second = await send([system, user, call, output]);
    expect(second.messages).toEqual([system, user, wireCall("files_read"), { role: "tool", tool_call_id: "c1", content: output.content }]);
    // pruning replaces the tool output with a new object: the next request carries the new text
    const pruned: ChatMessage = { ...output, content: "[pruned]" };
    expect((await send([system, user, call, pruned])).messages.at(-1)).toEqual({ role: "tool", tool_call_id: "c1", content: "[pruned]" });
    // a tool that really is called files_read takes that name: the cached assistant message is re-encoded with the new one
    const third = await send([system, user, call, pruned], [dotted, { ...readTool, name: "files_read" }]);
    const renamed = third.messages[2]!.tool_calls![0]!.function.name;
    expect(renamed).not.toBe("files_read");
    expect(renamed).toMatch(/^files_read_[0-9a-f]{8}$/);
    expect(third.tools!.map((t) => t.function.name).sort()).toEqual(["files_read", renamed].sort());
    expect(third.max_tokens).toBe(256);
    expect(third.stream_options).toEqual({ include_usage: true });
  });

  it("needs a key or a base URL", () => {
    expect(() => openaiModel(spec({ baseUrl: undefined }), {})).toThrow(/KEEL_TEST_KEY/);
  });
});

describe("model configuration", () => {
  it("resolves --model, config and env, and reports nothing configured as undefined", () => {
    expect(resolveModelSpec({}, undefined, {}, "/w")).toBeUndefined();
    expect(resolveModelSpec({ model: "scripted:s.json" }, undefined, {}, "/w")).toMatchObject({ kind: "scripted", file: "/w/s.json" });
    expect(resolveModelSpec({ model: { name: "llama", contextWindow: 4096 } }, undefined, { OPENAI_BASE_URL: "http://x/v1" }, "/w")).toMatchObject({
      kind: "openai",
      name: "llama",
      baseUrl: "http://x/v1",
      contextWindow: 4096,
    });
    expect(resolveModelSpec({ model: { name: "a" } }, "b", {}, "/w")).toMatchObject({ name: "b" });
  });

  it("tool names keep valid names and stay unique", () => {
    const names = ["ok_name", "a.b", "a_b", "x".repeat(100), "x".repeat(100) + "y"];
    const map = new ToolNameMap(names);
    const wires = names.map((n) => map.wire(n));
    expect(new Set(wires).size).toBe(names.length);
    expect(map.wire("ok_name")).toBe("ok_name");
    for (const [i, w] of wires.entries()) {
      expect(w).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
      expect(map.local(w)).toBe(names[i]);
    }
    expect(normalizeToolSchema({ type: "string" })).toMatchObject({ type: "object", properties: {} });
  });

  it("a tool schema's required names are its own properties only (`toString` was kept, naming no property)", () => {
    const schema = JSON.parse('{"type":"object","properties":{"a":{"type":"string"}},"required":["a","toString","constructor"],"__proto__":{"x":1}}');
    const normalized = normalizeToolSchema(schema);
    expect(normalized).toEqual({ type: "object", properties: { a: { type: "string" } }, required: ["a"] });
    expect(Object.getPrototypeOf(normalized)).toBe(Object.prototype);
  });

  it("scripted:FILE replays turns by call index and byPrompt", async () => {
    const ws = makeWorkspace({
      "s.json": { turns: [{ text: "one" }, { toolCalls: [{ name: "t", arguments: { a: 1 } }] }], byPrompt: { CHILD: [{ text: "child" }] } },
    });
    const m = scriptedModel({ kind: "scripted", file: ws.path("s.json"), contextWindow: 1000, maxOutputTokens: 100 });
    const user = [{ role: "user" as const, content: "go" }];
    expect((await m.complete({ messages: user, tools: [], callIndex: 0 })).text).toBe("one");
    expect((await m.complete({ messages: user, tools: [], callIndex: 1 })).toolCalls[0]).toMatchObject({ name: "t", arguments: '{"a":1}' });
    expect((await m.complete({ messages: [{ role: "user", content: "CHILD task" }], tools: [], callIndex: 0 })).text).toBe("child");
    ws.cleanup();
  });
  it("a model.timeoutMs longer than a timer can wait is capped with a warning naming the file (the client's timer would fire at once)", async () => {
    const ws = makeWorkspace({}, { git: true });
    try {
      ws.writeUserConfig({ model: { name: "test-model", baseUrl: server.baseUrl, timeoutMs: 3_000_000_000 } });
      // Node fires a timer longer than 2^31-1 ms after 1 ms: uncapped, this reply (100 ms late) timed out.
      server.push({ text: "answered in time", delayMs: 100 });
      const r = await runKeel(["run", "hi"], { cwd: ws.root, env: { ...ws.env, OPENAI_API_KEY: "sk-test" } });
      expect(r.stderr).not.toMatch(/timed out|did not answer/i);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain("answered in time");
      const config = await runKeel(["--json", "config", "list"], { cwd: ws.root, env: ws.env });
      expect(JSON.stringify(config.json())).toMatch(/model\.timeoutMs is 3000000000 ms, more than the longest timeout keel can set \(2147483647 ms/);
    } finally {
      ws.cleanup();
    }
  });
});
