import { afterEach, describe, expect, it } from "vitest";
import { readEvents } from "../../../core/events.js";
import { startOpenAIServer, type OpenAIServer } from "../../helpers/openai-server.js";
import { runKeelProcess } from "../../helpers/run-cli.js";
import { chatRuleError } from "../../helpers/strict-chat-rules.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

// Guards: each path below already kept the rules when these tests were written (they pass on the code before
// valid-conversation.ts too); they keep every path that edits the history checked by a server as strict as OpenAI.
let server: OpenAIServer | undefined;
let ws: TempWorkspace | undefined;
afterEach(async () => {
  ws?.cleanup();
  await server?.close();
});

/** A git workspace whose model is a local server checking every request as strictly as OpenAI does; `config` is merged in. */
async function strictWorkspace(files: Record<string, string> = {}, config: object = {}): Promise<TempWorkspace> {
  server = await startOpenAIServer([], { strict: true });
  ws = makeWorkspace({ "a.txt": "AAA", ...files }, { git: true });
  ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl, maxRetries: 0 }, ...config });
  return ws;
}

function keel(...args: string[]) {
  return runKeelProcess(["--json", ...args], { cwd: ws!.root, env: ws!.env });
}

/** Every request the server got was accepted, and the last one keeps the rules. */
function expectAllValid(): void {
  expect(server!.refused).toEqual([]);
  expect(chatRuleError(server!.requests.at(-1)!.messages)).toBeUndefined();
}

const read = (id: string, path = "a.txt") => ({ id, name: "read_file", arguments: { path } });

describe("paths that edit the history keep every request valid (strict local server, keel as a process)", () => {
  it("a call rejected with `keel sessions reject` in the middle of three, then the turn goes on", async () => {
    await strictWorkspace();
    server!.push({ toolCalls: [read("r1"), { id: "b1", name: "bash", arguments: { command: "echo hi > hi.txt" } }, read("r2")] });
    const paused = await keel("run", "--session", "rej", "go");
    expect(paused.json()).toMatchObject({ reason: "awaiting_approval" });
    server!.push({ text: "understood" });
    const rejected = await keel("sessions", "reject", "rej");
    expect(rejected.json()).toMatchObject({ reason: "answer", text: "understood" });
    expectAllValid();
    expect(
      server!.requests
        .at(-1)!
        .messages.filter((m) => m.role === "tool")
        .map((m) => m.tool_call_id),
    ).toEqual(["r1", "b1", "r2"]);
    expect(ws!.exists("hi.txt")).toBe(false);
  });

  it("a PreToolUse hook that stops the turn (continue: false) in the middle of a batch, then --resume", async () => {
    await strictWorkspace({
      "stop.cjs": `process.stdin.resume(); process.stdin.on("end", () => console.log(JSON.stringify({ continue: false, stopReason: "freeze" })));`,
    });
    ws!.writeUserConfig({
      model: { name: "m", baseUrl: server!.baseUrl, maxRetries: 0 },
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `node "${ws!.path("stop.cjs")}"` }] }] },
    });
    server!.push({ toolCalls: [read("r1"), { id: "b1", name: "bash", arguments: { command: "echo" } }, read("r2")] });
    expect((await keel("--yes", "run", "--session", "hook", "go")).json()).toMatchObject({ reason: "hook_stop" });
    server!.push({ text: "ok" });
    expect((await keel("--yes", "run", "--resume", "hook", "go on")).json()).toMatchObject({ reason: "answer" });
    expectAllValid();
  });

  it("--max-steps stops after a batch of calls; --resume goes on from there", async () => {
    await strictWorkspace();
    server!.push({ toolCalls: [read("r1"), read("r2"), read("r3")] });
    expect((await keel("--yes", "run", "--max-steps", "1", "--session", "steps", "go")).json()).toMatchObject({ reason: "max_steps" });
    server!.push({ text: "done" });
    expect((await keel("--yes", "run", "--resume", "steps", "go on")).json()).toMatchObject({ reason: "answer", text: "done" });
    expectAllValid();
  });

  it("compaction in the middle of a long turn of parallel calls keeps each call with its results", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 6; i++) files[`f${i}.txt`] = `line of file ${i} with some words in it\n`.repeat(150);
    await strictWorkspace(files);
    ws!.writeUserConfig({ model: { name: "m", baseUrl: server!.baseUrl, maxRetries: 0, contextWindow: 6000 } });
    server!.push(
      ...[0, 2, 4].map((i) => ({ text: "reading two", toolCalls: [read(`c${i}`, `f${i}.txt`), read(`c${i + 1}`, `f${i + 1}.txt`)] })),
      { text: "all read" },
      { match: (b) => String(b.messages[0]?.content).startsWith("Summarize the conversation"), text: "## Goal\nread the files" },
    );
    const r = await keel("--yes", "run", "--session", "compact", "read f0.txt to f5.txt, two at a time");
    expect(r.json()).toMatchObject({ reason: "answer", text: "all read" });
    const events = readEvents(ws!.path(".keel/sessions/compact/events.jsonl"));
    expect(events.some((e) => e.type === "compaction")).toBe(true);
    expectAllValid();
    for (const request of server!.requests) expect(chatRuleError(request.messages)).toBeUndefined();
  });
});
