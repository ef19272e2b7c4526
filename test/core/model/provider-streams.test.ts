import { afterEach, describe, expect, it } from "vitest";
import { readEvents } from "../../../core/events.js";
import { eventsOfType } from "../../helpers/events.js";
import { useOpenAIServer } from "../../helpers/openai-server.js";
import { runKeel, runKeelProcess } from "../../helpers/run-cli.js";
import { sessionState } from "../../helpers/session-state.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

// Streams as OpenAI-compatible servers really send them, written out raw (`sse`), each run end to end through `keel run`.
const server = useOpenAIServer();
let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

const base = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "m" };
const chunk = (delta: object, finish_reason: string | null = null, extra: object = {}) => ({
  ...base,
  choices: [{ index: 0, delta, finish_reason }],
  ...extra,
});
const calls = (...deltas: object[]) => chunk({ tool_calls: deltas });
const DONE = "data: [DONE]\n\n";
const USAGE = { ...base, choices: [], usage: { prompt_tokens: 50, completion_tokens: 5, total_tokens: 55 } };
const READ = { type: "function", function: { name: "read_file", arguments: '{"path":"notes.txt"}' } };

/** A workspace with notes.txt whose user config points at the local server (no retries: each reply is one attempt). */
function workspace(model: object = {}): { root: string; env: NodeJS.ProcessEnv; events: (id: string) => ReturnType<typeof readEvents> } {
  const w = makeWorkspace({ "notes.txt": "the notes say hello\n" }, { git: true });
  w.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl, apiKeyEnv: "KEEL_TEST_KEY", maxRetries: 0, ...model } });
  ws = w;
  return { root: w.root, env: { ...w.env, KEEL_TEST_KEY: "k" }, events: (id) => readEvents(w.path(".keel", "sessions", id, "events.jsonl")) };
}

describe("tool-call streams of real servers (keel run, raw SSE scripts)", () => {
  // Each script streams one read_file call (or two) the way a server does; keel must run it as one call with whole arguments.
  const scripts: [string, (string | object)[], number][] = [
    [
      "deltas without index (Gemini's OpenAI endpoint, some local servers)",
      [
        calls({ id: "a", ...READ, function: { name: "read_file", arguments: '{"path":' } }),
        calls({ function: { arguments: '"notes.txt"}' } }),
        chunk({}, "tool_calls"),
        USAGE,
        DONE,
      ],
      1,
    ],
    ["index starting at 1, two calls", [calls({ index: 1, id: "a", ...READ }), calls({ index: 2, id: "b", ...READ }), chunk({}, "tool_calls"), DONE], 2],
    [
      "the whole call in one chunk, then finish_reason stop (Ollama, llama.cpp say stop)",
      [chunk({ role: "assistant", content: "", tool_calls: [{ index: 0, id: "call_x", ...READ }] }), chunk({}, "stop"), DONE],
      1,
    ],
    [
      "id only in the last delta, no type",
      [
        calls({ index: 0, function: { name: "read_file", arguments: '{"path":' } }),
        calls({ index: 0, function: { arguments: '"notes.txt"}' } }),
        calls({ index: 0, id: "late" }),
        chunk({}, "tool_calls"),
        DONE,
      ],
      1,
    ],
    [
      "the same id on every delta, type repeated (llama.cpp)",
      [
        calls({ index: 0, id: "X", ...READ, function: { name: "read_file", arguments: "" } }),
        calls({ index: 0, id: "X", type: "function", function: { arguments: '{"path":"notes.txt"}' } }),
        chunk({}, "tool_calls"),
        DONE,
      ],
      1,
    ],
    [
      "two calls interleaved by index (vLLM, OpenAI)",
      [
        calls({ index: 0, id: "a", type: "function", function: { name: "read_file", arguments: "" } }),
        calls({ index: 1, id: "b", type: "function", function: { name: "read_file", arguments: "" } }),
        calls({ index: 0, function: { arguments: '{"path":' } }),
        calls({ index: 1, function: { arguments: '{"path":' } }),
        calls({ index: 0, function: { arguments: '"notes.txt"}' } }),
        calls({ index: 1, function: { arguments: '"notes.txt"}' } }),
        chunk({}, "tool_calls"),
        USAGE,
        DONE,
      ],
      2,
    ],
    [
      "arguments as a JSON object (llama-server in some versions, TGI)",
      [calls({ index: 0, id: "a", function: { name: "read_file", arguments: { path: "notes.txt" } } }), chunk({}, "tool_calls"), DONE],
      1,
    ],
    [
      "usage in every chunk, none at the end, no [DONE] (vLLM continuous usage, a server that ends the stream)",
      [calls({ index: 0, id: "a", ...READ }), chunk({}, "tool_calls", { usage: { prompt_tokens: 9, completion_tokens: 2 } })],
      1,
    ],
  ];
  for (const [name, sse, count] of scripts)
    it(`${name}: runs as ${count} read_file call(s)`, async () => {
      const { root, env, events } = workspace();
      server.push({ sse }, { text: "done" });
      const r = await runKeel(["--yes", "--json", "run", "--session", "s", "read notes"], { cwd: root, env });
      expect(r.json<{ reason: string }>().reason, r.stderr).toBe("answer");
      const results = eventsOfType(events("s"), "tool_observation") as { ok: boolean; tool: string }[];
      expect(results.map((e) => [e.tool, e.ok])).toEqual(Array(count).fill(["read_file", true]));
      const back = server.requests.at(-1)!.messages.filter((m) => m.role === "tool");
      expect(back.map((m) => m.content)).toEqual(Array(count).fill(expect.stringContaining("the notes say hello")));
    });

  it('a call without parameters whose arguments are "" runs with {}', async () => {
    const { root, env } = workspace();
    server.push(
      { sse: [calls({ index: 0, id: "a", type: "function", function: { name: "list_dir", arguments: "" } }), chunk({}, "tool_calls"), DONE] },
      { text: "done" },
    );
    const r = await runKeel(["--yes", "--json", "run", "--session", "s", "list"], { cwd: root, env });
    expect(r.json<{ reason: string }>().reason, r.stderr).toBe("answer");
    const last = server.requests.at(-1)!.messages;
    expect(last.find((m) => m.role === "assistant")?.tool_calls?.[0]?.function).toEqual({ name: "list_dir", arguments: "{}" });
    expect(last.find((m) => m.role === "tool")?.content).toContain("notes.txt");
  });
});

describe("answers, finish reasons and usage of real servers (keel run, raw SSE scripts)", () => {
  const answers: [string, (string | object)[], string | undefined][] = [
    [
      "finish_reason eos (some local servers), no usage",
      [chunk({ role: "assistant", content: "hel" }), chunk({ content: "lo" }), chunk({}, "eos"), DONE],
      "eos",
    ],
    ["usage only in a final chunk with choices: [] (stream_options include_usage)", [chunk({ content: "hello" }), chunk({}, "stop"), USAGE, DONE], "stop"],
    [
      "an empty choices chunk first (Azure's prompt filter results)",
      [{ ...base, choices: [], prompt_filter_results: [] }, chunk({ content: "hello" }, "stop"), DONE],
      "stop",
    ],
    [
      "reasoning_content beside the answer (DeepSeek, vLLM)",
      [chunk({ reasoning_content: "Let me think." }), chunk({ content: "hello" }, "stop"), DONE],
      "stop",
    ],
    ["reasoning beside the answer (OpenRouter, newer vLLM)", [chunk({ reasoning: "Let me think." }), chunk({ content: "hello" }, "stop"), DONE], "stop"],
  ];
  for (const [name, sse, finishReason] of answers)
    it(`${name}: the answer is the content`, async () => {
      const { root, env, events } = workspace();
      server.push({ sse });
      const r = await runKeel(["--json", "run", "--session", "a", "hi"], { cwd: root, env });
      expect(r.json<{ reason: string; text: string }>(), r.stderr).toMatchObject({ reason: "answer", text: "hello" });
      expect(eventsOfType(events("a"), "model_response")).toEqual([expect.objectContaining({ finishReason })]);
    });
});

describe("stream quirks keel did not handle (keel run, raw SSE scripts)", () => {
  it("Groq's usage in x_groq.usage on the last chunk (not in usage) is the call's usage", async () => {
    const { root, env, events } = workspace();
    // As Groq streams it: the finish chunk carries `x_groq: {id, usage}`, and no chunk has `usage`.
    const groq = { usage: { queue_time: 0.01, prompt_tokens: 1234, prompt_time: 0.02, completion_tokens: 56, completion_time: 0.1, total_tokens: 1290 } };
    server.push({
      sse: [chunk({ role: "assistant", content: "hel" }), chunk({ content: "lo" }), chunk({}, "stop", { x_groq: { id: "req_1", ...groq } }), DONE],
    });
    const r = await runKeel(["--json", "run", "--session", "g", "hi"], { cwd: root, env });
    // Old code: no usage read, keel estimated the tokens (a few for "hi").
    expect(r.json<{ text: string }>(), r.stderr).toMatchObject({ text: "hello", usage: expect.objectContaining({ inputTokens: 1234, outputTokens: 56 }) });
    expect(eventsOfType(events("g"), "model_response")).toEqual([expect.objectContaining({ usage: { inputTokens: 1234, outputTokens: 56 } })]);
  });

  it("a leading <think>…</think> in the content (a local reasoning model without a reasoning parser) is neither shown nor kept nor sent back", async () => {
    const { root, env } = workspace();
    const think = [
      chunk({ content: "<thi" }),
      chunk({ content: "nk>\nThe user wants the notes" }),
      chunk({ content: ".\n</think>" }),
      chunk({ content: "\n\n" }),
    ];
    server.push(
      { sse: [...think, chunk({ content: "Reading." }), calls({ index: 0, id: "a", ...READ }), chunk({}, "tool_calls"), DONE] },
      { sse: [...think, chunk({ content: "They say hello." }, "stop"), DONE] },
    );
    const before = server.requests.length;
    const r = await runKeel(["--yes", "run", "--session", "t", "read notes"], { cwd: root, env });
    expect(r.exitCode, r.stderr).toBe(0);
    // Old code: the reasoning was printed as the answer, recorded, and sent back as the assistant's content.
    expect(r.stdout + r.stderr).not.toMatch(/think>|The user wants/);
    expect(r.stdout).toContain("They say hello.");
    const assistant = server.requests[before + 1]!.messages.find((m) => m.role === "assistant");
    expect(assistant?.content).toBe("Reading.");
    const state = await sessionState(root, "t");
    expect(state.lastAnswer).toBe("They say hello.");
    expect(JSON.stringify(state.messages)).not.toContain("think>");
  });

  it("a template that opened <think> (DeepSeek-R1 distills, QwQ): the reasoning up to `</think>` is not kept, and later answers hold it back", async () => {
    const { root, env } = workspace();
    // As llama.cpp streams an R1 distill whose chat template ends the prompt with `<think>\n`: no opening tag in the content.
    const thought = (text: string) => [
      chunk({ role: "assistant", content: "" }),
      chunk({ content: text.slice(0, 9) }),
      chunk({ content: text.slice(9) + "\n</th" }),
      chunk({ content: "ink>\n\n" }),
    ];
    server.push(
      {
        sse: [
          ...thought("Okay, the user wants the notes."),
          chunk({ content: "Reading." }),
          calls({ index: 0, id: "a", ...READ }),
          chunk({}, "tool_calls"),
          DONE,
        ],
      },
      { sse: [...thought("The notes say hello, so I answer that."), chunk({ content: "They say hello." }, "stop"), DONE] },
    );
    const before = server.requests.length;
    const r = await runKeelProcess(["--yes", "run", "--session", "o", "read notes"], { cwd: root, env });
    expect(r.exitCode, r.stderr).toBe(0);
    // Old code: the reasoning and `</think>` were recorded and sent back as the assistant's content, and shown as the answer.
    const assistant = server.requests[before + 1]!.messages.find((m) => m.role === "assistant");
    expect(assistant?.content).toBe("Reading.");
    const state = await sessionState(root, "o");
    expect(state.lastAnswer).toBe("They say hello.");
    expect(JSON.stringify(state.messages)).not.toContain("think>");
    // The first answer's reasoning streamed before its end showed what it was; the second's is held back, never shown.
    expect(r.stdout).toContain("They say hello.");
    expect(r.stdout).not.toContain("so I answer that");
    expect(r.stderr.match(/up to its <\/think> line, was its reasoning/g)).toHaveLength(1);
  });

  it("a whole answer (model.stream false) from such a template keeps only what follows the `</think>` line; an answer that only mentions the tag is whole", async () => {
    const { root, env } = workspace({ stream: false });
    server.push({ text: "The user says hi.\n</think>\n\nhello" }, { text: "Write `</think>` to end it,\nor not." });
    const first = await runKeel(["--json", "run", "--session", "w", "hi"], { cwd: root, env });
    expect(first.json<{ text: string }>().text).toBe("hello");
    const second = await runKeel(["--json", "run", "--session", "v", "hi"], { cwd: root, env });
    expect(second.json<{ text: string }>().text).toBe("Write `</think>` to end it,\nor not.");
  });

  it("a later answer that quotes a `</think>` line (a file the model read) is kept whole, streamed or not: only the first answer shows a template", async () => {
    for (const stream of [false, true]) {
      const { root, env } = workspace({ stream });
      const quoting = "The notes end with a stray tag:\n</think>\nNothing else is in them.";
      server.push({ toolCalls: [{ id: "a", name: "read_file", arguments: { path: "notes.txt" } }] }, { text: quoting });
      const r = await runKeel(["--yes", "--json", "run", "--session", `q${stream}`, "summarize the notes"], { cwd: root, env });
      // Old code: the answer was taken as reasoning up to that line: the --json text (and the session) kept only its last line.
      expect(r.json<{ text: string }>(), r.stderr).toMatchObject({ text: quoting });
      expect(r.stderr).not.toContain("was its reasoning");
      expect((await sessionState(root, `q${stream}`)).lastAnswer).toBe(quoting);
    }
  });

  it("the same <think> block in a whole answer (model.stream false) is left out too", async () => {
    const { root, env } = workspace({ stream: false });
    server.push({ text: "<think>\nThe user says hi.\n</think>\n\nhello" });
    const r = await runKeel(["--json", "run", "hi"], { cwd: root, env });
    // Old code: the answer began with the reasoning.
    expect(r.json<{ text: string }>().text).toBe("hello");
  });

  it("content that only looks like a tag, or a <think> that never closes, stays the answer", async () => {
    const { root, env } = workspace();
    server.push(
      { sse: [chunk({ content: "<b>hello</b>" }, "stop"), DONE] },
      { sse: [chunk({ content: "<think>never" }), chunk({ content: " closed" }, "stop"), DONE] },
    );
    const first = await runKeel(["--json", "run", "--session", "u", "hi"], { cwd: root, env });
    expect(first.json<{ text: string }>().text).toBe("<b>hello</b>");
    const second = await runKeel(["--json", "run", "--resume", "u", "again"], { cwd: root, env });
    expect(second.json<{ text: string }>().text).toBe("<think>never closed");
  });

  it("content as a list of parts (Mistral's Magistral: thinking parts, then text parts) is the text of its text parts", async () => {
    const { root, env } = workspace();
    const thinking = (text: string) => chunk({ role: "assistant", content: [{ type: "thinking", thinking: [{ type: "text", text }] }] });
    server.push({
      sse: [thinking("The user greets"), thinking(" me."), chunk({ content: [{ type: "text", text: "hel" }] }), chunk({ content: "lo" }, "stop"), USAGE, DONE],
    });
    const r = await runKeel(["--json", "run", "--session", "p", "hi"], { cwd: root, env });
    // Old code: the parts were taken for text ("[object Object][object Object][object Object]lo"), or dropped ("lo").
    expect(r.json<{ reason: string; text: string }>(), r.stderr).toMatchObject({ reason: "answer", text: "hello" });
    expect(r.stderr).not.toContain("The user greets");
  });

  it("content as a list of parts in a whole answer (model.stream false) is the text of its text parts", async () => {
    const { root, env } = workspace({ stream: false });
    const message = {
      role: "assistant",
      content: [
        { type: "thinking", thinking: [{ type: "text", text: "The user greets me." }] },
        { type: "text", text: "hello" },
      ],
    };
    const json = { id: "c", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, finish_reason: "stop", message }] };
    server.push({ rawBody: { contentType: "application/json", body: JSON.stringify(json) } });
    const r = await runKeel(["--json", "run", "--session", "q", "hi"], { cwd: root, env });
    expect(r.json<{ reason: string; text: string }>(), r.stderr).toMatchObject({ reason: "answer", text: "hello" });
  });

  it("llama.cpp's `error:` event-stream line is the server's error, with its message", async () => {
    const { root, env, events } = workspace();
    const error = { code: 400, message: "the request exceeds the available context size, try increasing it", type: "exceed_context_size_error" };
    server.push({ sse: [`error: ${JSON.stringify(error)}\n\n`, DONE] });
    const r = await runKeel(["run", "--session", "e", "hi"], { cwd: root, env });
    expect(r.exitCode).toBe(1);
    // Old code: the line was ignored and keel said "answered 200 without a chat-completions stream (no data chunks)".
    expect(r.stderr).toContain("sent an error inside its answer (400: the request exceeds the available context size, try increasing it)");
    expect(eventsOfType(events("e"), "model_error")).toEqual([expect.objectContaining({ transient: false })]);
  });

  it("llama.cpp's `error:` line after some of the answer, split across writes, is a transient error (500)", async () => {
    const { root, env } = workspace();
    server.push({ sse: [chunk({ content: "hel" }), "err", 'or: {"code":500,"message":"slot', ' crashed","type":"server_error"}\r\n', "\r\n", DONE] });
    const r = await runKeel(["run", "hi"], { cwd: root, env });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("sent an error inside its answer (500: slot crashed)");
  });

  it("a tool name under a namespace (functions.read_file) runs the tool sent; an unknown one is still an unknown tool", async () => {
    const { root, env, events } = workspace();
    server.push(
      {
        sse: [
          calls({ index: 0, id: "a", type: "function", function: { name: "functions.read_file", arguments: '{"path":"notes.txt"}' } }),
          chunk({}, "tool_calls"),
          DONE,
        ],
      },
      { sse: [calls({ index: 0, id: "b", type: "function", function: { name: "functions.no_such_tool", arguments: "{}" } }), chunk({}, "tool_calls"), DONE] },
      { text: "done" },
    );
    const before = server.requests.length;
    const r = await runKeel(["--yes", "--json", "run", "--session", "n", "read"], { cwd: root, env });
    expect(r.json<{ reason: string }>().reason, r.stderr).toBe("answer");
    // Old code: "Unknown tool functions.read_file", and the model had to try again.
    const results = eventsOfType(events("n"), "tool_observation") as { ok: boolean; tool: string; code: string }[];
    expect(results.map((e) => [e.tool, e.code])).toEqual([
      ["read_file", "ok"],
      ["functions.no_such_tool", "unknown_tool"],
    ]);
    expect(server.requests[before + 1]!.messages.find((m) => m.role === "assistant")?.tool_calls?.[0]?.function.name).toBe("read_file");
  });

  it("a server that refuses stream_options (Azure OpenAI before 2024-09-01-preview) is asked again without it, and from then on", async () => {
    const { root, env } = workspace();
    const refusal = { error: { message: "Unrecognized request argument supplied: stream_options", type: "invalid_request_error", param: null, code: null } };
    server.push(
      { match: (b) => "stream_options" in b, status: 400, errorBody: refusal },
      { toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] },
      { text: "hello" },
    );
    const before = server.requests.length;
    const r = await runKeel(["--yes", "--json", "run", "--session", "o", "hi"], { cwd: root, env });
    // Old code: the turn ended with the 400, and nothing the user could set turned the field off but "stream": false.
    expect(r.json<{ reason: string; text: string }>(), r.stderr).toMatchObject({ reason: "answer", text: "hello" });
    expect(server.requests.slice(before).map((b) => "stream_options" in b)).toEqual([true, false, false]);
  });

  it("a server that cannot stream while tools are offered (llama.cpp: 500 Cannot use tools with stream) is asked again at once not streamed, and from then on", async () => {
    const { root, env, events } = workspace();
    const refusal = { error: { code: 500, message: "Cannot use tools with stream", type: "server_error" } };
    server.push(
      { match: (b) => b.stream === true && (b.tools?.length ?? 0) > 0, status: 500, errorBody: refusal },
      { toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] },
      { text: "hello" },
    );
    const before = server.requests.length;
    const r = await runKeel(["--yes", "--json", "run", "--session", "w", "hi"], { cwd: root, env });
    // Old code: a transient 500, retried in vain (here: none) and the turn ended with "Retry later".
    expect(r.json<{ reason: string; text: string }>(), r.stderr).toMatchObject({ reason: "answer", text: "hello" });
    expect(server.requests.slice(before).map((b) => b.stream === true)).toEqual([true, false, false]);
    expect(eventsOfType(events("w"), "model_retry")).toEqual([]);
  });

  it("a data line that is not JSON is a clear error that does not print the line", async () => {
    const { root, env, events } = workspace();
    server.push({ sse: [chunk({ content: "hel" }), 'data: {"choices": [\u001b[2J\n\n', chunk({}, "stop"), DONE] });
    const r = await runKeel(["run", "--session", "j", "hi"], { cwd: root, env });
    expect(r.exitCode).toBe(1);
    // Old code: "the connection broke (Expected property name …)", and the openai client printed the raw line to stderr.
    expect(r.stderr).toContain("sent a line of its event stream that is not JSON");
    expect(r.stderr).not.toContain("\u001b[2J");
    expect(r.stderr).not.toContain("Could not parse");
    expect(eventsOfType(events("j"), "model_error")).toEqual([expect.objectContaining({ transient: true })]);
  });
});
