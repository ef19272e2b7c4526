import { existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { useOpenAIServer } from "../../helpers/openai-server.js";
import { runKeel, runKeelProcess } from "../../helpers/run-cli.js";
import { sessionState } from "../../helpers/session-state.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

// A local model served without a tool-call parser (Qwen2.5 or Hermes on llama.cpp without --jinja, vLLM without
// --enable-auto-tool-choice) writes its calls into the content in the Hermes format.
const server = useOpenAIServer();
let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

function workspace(model: object = {}) {
  const w = makeWorkspace({ "notes.txt": "the notes say hello\n" }, { git: true });
  w.writeUserConfig({ model: { name: "qwen2.5", baseUrl: server.baseUrl, apiKeyEnv: "KEEL_TEST_KEY", maxRetries: 0, ...model } });
  ws = w;
  return { root: w.root, env: { ...w.env, KEEL_TEST_KEY: "k" } };
}

const block = (name: string, args: object) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

describe("tool calls written as Hermes <tool_call> text, when the server sent none", () => {
  it("an answer that is only such blocks runs them as calls (streamed: keel run as a process)", async () => {
    const { root, env } = workspace();
    server.push({ text: block("read_file", { path: "notes.txt" }) }, { text: "They say hello." });
    const before = server.requests.length;
    const r = await runKeelProcess(["--yes", "run", "--session", "h", "read notes"], { cwd: root, env });
    expect(r.exitCode, r.stderr).toBe(0);
    // Old code: the block was the final answer, and nothing ran. Held back while it streamed, it is never shown.
    expect(r.stdout).not.toContain("<tool_call>");
    const second = server.requests[before + 1]!;
    const assistant = second.messages.find((m) => m.role === "assistant");
    expect(assistant?.tool_calls?.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([["read_file", { path: "notes.txt" }]]);
    expect(second.messages.find((m) => m.role === "tool")?.content).toContain("the notes say hello");
    expect((await sessionState(root, "h")).lastAnswer).toBe("They say hello.");
  });

  it("whole answers (model.stream false) too, two blocks, arguments as JSON text; the blocks are not shown", async () => {
    const { root, env } = workspace({ stream: false });
    const text = `${block("read_file", { path: "notes.txt" })}\n\n<tool_call>{"name": "read_file", "arguments": "{\\"path\\": \\"notes.txt\\"}"}</tool_call>\n`;
    server.push({ text }, { text: "done" });
    const before = server.requests.length;
    const r = await runKeel(["--yes", "run", "read"], { cwd: root, env });
    expect(r.stdout).not.toContain("<tool_call>");
    expect(server.requests[before + 1]!.messages.filter((m) => m.role === "tool")).toHaveLength(2);
  });

  it("it stays text when anything else is in the answer, the tool was not offered, the JSON is not a call, or the server sent calls", async () => {
    const { root, env } = workspace();
    for (const text of [
      `Here is how to call it: ${block("read_file", { path: "notes.txt" })}`,
      block("launch_missiles", { now: true }),
      "<tool_call>{not json}</tool_call>",
      `${block("read_file", { path: "notes.txt" })} and then`,
    ]) {
      server.push({ text });
      const r = await runKeel(["--yes", "--json", "run", "hi"], { cwd: root, env });
      expect(r.json(), text).toMatchObject({ reason: "answer", text });
    }
    // Held back while it streamed (it began with <tool_call>), such an answer is shown whole at its end.
    server.push({ text: `${block("read_file", { path: "notes.txt" })} and then` });
    const shown = await runKeel(["--yes", "run", "hi"], { cwd: root, env });
    expect(shown.stdout).toBe(`${block("read_file", { path: "notes.txt" })} and then`);
    const before = server.requests.length;
    server.push(
      { text: block("write_file", { path: "x.txt", content: "x" }), toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] },
      { text: "ok" },
    );
    await runKeel(["--yes", "--json", "run", "hi"], { cwd: root, env });
    expect(server.requests[before + 1]!.messages.find((m) => m.role === "assistant")?.tool_calls?.map((c) => c.function.name)).toEqual(["read_file"]);
    expect(existsSync(`${root}/x.txt`)).toBe(false);
  });

  it("a call written so goes through permissions like any other: without --yes, bash waits for approval and nothing runs", async () => {
    const { root, env } = workspace();
    server.push({ text: block("bash", { command: "touch pwned" }) });
    const r = await runKeel(["--json", "run", "hi"], { cwd: root, env });
    expect(r.json()).toMatchObject({ reason: "awaiting_approval", pendingApproval: { tool: "bash" } });
    expect(existsSync(`${root}/pwned`)).toBe(false);
  });
});
