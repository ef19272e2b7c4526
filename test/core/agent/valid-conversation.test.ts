import { appendFileSync, existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { readEvents } from "../../../core/events.js";
import { NO_RESULT_RECORDED } from "../../../core/model/valid-conversation.js";
import { startOpenAIServer, type ChatRequestBody, type OpenAIServer } from "../../helpers/openai-server.js";
import { runKeelProcess, startKeelProcess } from "../../helpers/run-cli.js";
import { sessionState } from "../../helpers/session-state.js";
import { chatRuleError } from "../../helpers/strict-chat-rules.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

// One strict server per test: a refused request leaves its scripted reply queued, which must not reach the next test.
let server: OpenAIServer | undefined;
let ws: TempWorkspace | undefined;
afterEach(async () => {
  ws?.cleanup();
  await server?.close();
});

/** A git workspace whose model is a local server that checks every request as strictly as OpenAI does. */
async function strictWorkspace(): Promise<TempWorkspace> {
  server = await startOpenAIServer([], { strict: true });
  ws = makeWorkspace({ "a.txt": "AAA" }, { git: true });
  ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl, maxRetries: 0 } });
  return ws;
}

/** `keel --json --yes ARGS` as a process (the real `openai` client path). */
function keel(...args: string[]) {
  return runKeelProcess(["--json", "--yes", ...args], { cwd: ws!.root, env: ws!.env });
}

/** Each message of a request as `[role, ids, content start]`: the call ids of an assistant message, the id a tool result answers. */
function shape(request: ChatRequestBody): [string, string, string][] {
  return request.messages.map((m) => [m.role, m.tool_call_id ?? (m.tool_calls ?? []).map((c) => c.id).join(","), String(m.content ?? "").slice(0, 40)]);
}

describe("every request keel sends is a valid chat-completions request (strict local server, keel as a process)", () => {
  it("tool-call ids longer than OpenAI's 40 characters (another server's): sent short, paired, and the same after a resume", async () => {
    await strictWorkspace();
    const long = (n: number) => `toolu_${String(n).repeat(45)}`;
    server!.push(
      {
        text: "reading both",
        toolCalls: [
          { id: long(1), name: "read_file", arguments: { path: "a.txt" } },
          { id: long(2), name: "read_file", arguments: { path: "a.txt" } },
        ],
      },
      { text: "read them" },
    );
    const first = await keel("run", "--session", "long", "read a.txt twice");
    // Old code: the second request was refused (400 string_above_max_length), and so was every resume.
    expect(server!.refused).toEqual([]);
    expect(first.exitCode, first.stdout).toBe(0);
    expect(first.json()).toMatchObject({ reason: "answer", text: "read them" });
    server!.push({ text: "again" });
    const resumed = await keel("run", "--resume", "long", "and now?");
    expect(resumed.exitCode, resumed.stdout).toBe(0);
    expect(server!.refused).toEqual([]);
    const [, afterCalls, afterResume] = server!.requests;
    const ids = afterCalls!.messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id));
    expect(ids).toHaveLength(2);
    expect(ids.every((id) => id.length <= 40)).toBe(true);
    expect(new Set(ids).size).toBe(2);
    expect(afterCalls!.messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id)).toEqual(ids);
    // the same ids in the resumed session's request: the model's earlier calls stay paired with their results
    expect(shape(afterResume!).slice(0, shape(afterCalls!).length)).toEqual(shape(afterCalls!));
    // keel's own record keeps the ids the server sent
    const state = await sessionState(ws!.root, "long");
    expect(state.messages.flatMap((m) => (m.role === "tool" ? [m.toolCallId] : []))).toEqual([long(1), long(2)]);
  });

  it("a 40-character id the model repeats in one response: keel's renamed id (41+ characters) is still accepted", async () => {
    await strictWorkspace();
    const id = `call_${"a".repeat(35)}`;
    server!.push(
      {
        toolCalls: [
          { id, name: "read_file", arguments: { path: "a.txt" } },
          { id, name: "read_file", arguments: { path: "a.txt" } },
        ],
      },
      { text: "done" },
    );
    const r = await keel("run", "--session", "dup", "read twice");
    // Old code: `<id>-2` (42 characters) was refused with 400, on this run and every resume.
    expect(server!.refused).toEqual([]);
    expect(r.exitCode, r.stdout).toBe(0);
    expect(r.json()).toMatchObject({ reason: "answer", text: "done" });
  });

  it("a stored session whose history breaks the rules (an older keel, an edited log) is repaired on resume, nothing dropped, once", async () => {
    await strictWorkspace();
    server!.push({ text: "first answer" });
    expect((await keel("run", "--session", "old", "start")).exitCode).toBe(0);
    // What an older keel could leave in the log: a call without its result, a message between a call and its
    // result, a result whose call is gone.
    const log = ws!.path(".keel/sessions/old/events.jsonl");
    const add = (message: object) => appendFileSync(log, JSON.stringify({ ts: Date.now(), type: "session_message", sessionId: "old", message }) + "\n");
    add({
      role: "assistant",
      content: "",
      toolCalls: [
        { id: "x1", name: "read_file", arguments: '{"path":"a.txt"}' },
        { id: "x2", name: "read_file", arguments: '{"path":"a.txt"}' },
      ],
    });
    add({ role: "user", kind: "queued", content: "a message typed meanwhile" });
    add({ role: "tool", toolCallId: "x2", name: "read_file", content: "AAA from x2" });
    add({ role: "tool", toolCallId: "gone", name: "bash", content: "output of a call no longer there" });
    add({ role: "assistant", content: "", toolCalls: [{ id: "y1", name: "read_file", arguments: '{"path":"a.txt"}' }] });
    add({ role: "user", content: "a later prompt" });
    server!.push({ text: "resumed" });
    const resumed = await keel("run", "--resume", "old", "go on");
    // Old code: 400 "An assistant message with 'tool_calls' must be followed by tool messages …", on every resume.
    expect(server!.refused).toEqual([]);
    expect(resumed.exitCode, resumed.stdout).toBe(0);
    const request = server!.requests.at(-1)!;
    expect(shape(request).slice(3)).toEqual([
      ["assistant", "x1,x2", ""],
      ["tool", "x1", NO_RESULT_RECORDED.slice(0, 40)],
      ["tool", "x2", "AAA from x2"],
      ["user", "", "a message typed meanwhile"],
      ["user", "", "[keel: all the rest of this message, to "],
      ["assistant", "y1", ""],
      ["tool", "y1", NO_RESULT_RECORDED.slice(0, 40)],
      ["user", "", "a later prompt"],
      ["user", "", "go on"],
    ]);
    expect(request.messages[7]!.content).toContain("output of a call no longer there");
    // appended as an edit of the broken step alone (a long session's whole history in one log line would be too long to read back)
    const edits = readEvents(log).filter((e) => e.type === "session_edit" && (e as { start: number }).start > 0);
    // each broken assistant message with what follows it, up to the next one
    expect(edits).toMatchObject([
      { start: 3, deleteCount: 4 },
      { start: 8, deleteCount: 3 },
    ]);
    const repaired = readEvents(log).filter((e) => e.type === "conversation_repaired");
    expect(repaired).toMatchObject([{ unanswered: 2, unansweredIds: ["x1", "y1"], moved: 1, strayResults: 1, renamed: 0 }]);
    // recorded in the session (appended to its log): the next resume sends the same history, no second repair
    server!.push({ text: "again" });
    expect((await keel("run", "--resume", "old", "more")).exitCode).toBe(0);
    expect(shape(server!.requests.at(-1)!).slice(0, request.messages.length)).toEqual(shape(request));
    expect(readEvents(log).filter((e) => e.type === "conversation_repaired")).toHaveLength(1);
  });

  for (const signal of ["SIGTERM", "SIGKILL"] as const)
    it(`${signal} while the first of three calls runs, then --resume: every call has exactly one result right after its message`, async () => {
      await strictWorkspace();
      server!.push({
        text: "three at once",
        toolCalls: [
          { id: "p1", name: "bash", arguments: { command: "touch started; sleep 60" } },
          { id: "p2", name: "bash", arguments: { command: "echo never > p2.txt" } },
          { id: "p3", name: "read_file", arguments: { path: "a.txt" } },
        ],
      });
      const child = startKeelProcess(["--json", "--yes", "run", "--session", "k", "go"], ws!);
      for (let i = 0; i < 1200 && !existsSync(ws!.path("started")); i++) await new Promise((r) => setTimeout(r, 50));
      child.kill(signal);
      await child;
      server!.push({ text: "resumed" });
      const r = await keel("run", "--resume", "k", "go on");
      expect(server!.refused).toEqual([]);
      expect(r.exitCode, r.stdout).toBe(0);
      const request = server!.requests.at(-1)!;
      expect(chatRuleError(request.messages)).toBeUndefined();
      expect(
        shape(request)
          .slice(2, 6)
          .map(([role, ids]) => [role, ids]),
      ).toEqual([
        ["assistant", "p1,p2,p3"],
        ["tool", "p1"],
        ["tool", "p2"],
        ["tool", "p3"],
      ]);
      expect(ws!.exists("p2.txt")).toBe(false);
    });
});

describe("an empty answer in the history (vLLM refuses an assistant message with empty content)", () => {
  it("is not sent again: the session goes on with the next prompt", async () => {
    await strictWorkspace();
    server!.push({ text: "" });
    const first = await keel("run", "--session", "empty", "say nothing");
    expect(first.json()).toMatchObject({ reason: "answer", text: "" });
    server!.push({ text: "now an answer", refuseEmptyAssistant: true });
    const resumed = await keel("run", "--resume", "empty", "say something");
    // Old code: `{"role": "assistant", "content": ""}` went with every later request, which vLLM answers with 400.
    expect(resumed.exitCode, resumed.stdout).toBe(0);
    expect(resumed.json()).toMatchObject({ reason: "answer", text: "now an answer" });
    expect(shape(server!.requests.at(-1)!).map(([role, , content]) => [role, content])).toEqual([
      ["system", expect.any(String)],
      ["user", "say nothing"],
      ["user", "say something"],
    ]);
    // keel's own record keeps the empty answer
    expect((await sessionState(ws!.root, "empty")).messages.some((m) => m.role === "assistant" && m.content === "")).toBe(true);
  });
});

describe("a tool call whose arguments are not JSON (vLLM and SGLang parse the arguments of every call in a request)", () => {
  it("is sent back with {} (its result says why it did not run): the session goes on", async () => {
    await strictWorkspace();
    server!.push(
      {
        toolCalls: [
          { id: "bad", name: "write_file", arguments: '{"path": "b.txt", "content": "cut he' },
          { id: "good", name: "read_file", arguments: { path: "a.txt" } },
        ],
      },
      { text: "noted", parseArguments: true },
    );
    const r = await keel("run", "--session", "args", "write b.txt");
    // Old code: the cut arguments went back as written, and vLLM refused this request and every later one.
    expect(r.exitCode, r.stdout).toBe(0);
    expect(r.json()).toMatchObject({ reason: "answer", text: "noted" });
    const request = server!.requests.at(-1)!;
    const calls = request.messages.flatMap((m) => m.tool_calls ?? []);
    expect(calls.map((c) => c.function.arguments)).toEqual(["{}", '{"path":"a.txt"}']);
    expect(request.messages.find((m) => m.tool_call_id === "bad")!.content).toMatch(
      /^Error \(schema_invalid\): The arguments of write_file are not valid JSON/,
    );
    expect(ws!.exists("b.txt")).toBe(false);
    // keel's own record keeps what the model wrote
    const state = await sessionState(ws!.root, "args");
    expect(state.messages.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []) : []))[0]!.arguments).toBe('{"path": "b.txt", "content": "cut he');
  });
});
