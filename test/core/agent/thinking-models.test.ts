import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { useOpenAIServer } from "../../helpers/openai-server.js";
import { runKeel } from "../../helpers/run-cli.js";
import { sessionState } from "../../helpers/session-state.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const server = useOpenAIServer();
let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

describe("thinking models: the reasoning and signatures behind tool calls go back with them (real openai client, local server)", () => {
  for (const stream of [true, false])
    it(`a DeepSeek-style server that answers 400 without it gets reasoning_content back, and the session goes on (stream: ${stream})`, async () => {
      ws = makeWorkspace({ "a.txt": "AAA" }, { git: true });
      ws.writeUserConfig({ model: { name: "deepseek-v4-flash", baseUrl: server.baseUrl, apiKeyEnv: "KEEL_TEST_KEY", stream } });
      server.push(
        { reasoning: { text: "The user wants a.txt; read it first." }, toolCalls: [{ id: "c1", name: "read_file", arguments: { path: "a.txt" } }] },
        { requireReasoningBack: true, reasoning: { text: "It says AAA." }, text: "It says AAA." },
        { requireReasoningBack: true, text: "still fine" },
      );
      const env = { ...ws.env, KEEL_TEST_KEY: "k" };
      const first = await runKeel(["--yes", "run", "--session", "t1", "what is in a.txt?"], { cwd: ws.root, env });
      expect(first.exitCode, first.stderr).toBe(0);
      expect(first.stdout).toContain("It says AAA.");
      const sent = server.requests.at(-1)!.messages.find((m) => m.role === "assistant" && m.tool_calls?.length);
      expect(sent?.reasoning_content).toBe("The user wants a.txt; read it first.");
      // the next turn (a new process, from the session's record) still sends it; an answer's reasoning is not kept
      const second = await runKeel(["--yes", "run", "--resume", "t1", "and now?"], { cwd: ws.root, env });
      expect(second.exitCode, second.stderr).toBe(0);
      expect(second.stdout).toContain("still fine");
      const assistant = server.requests.at(-1)!.messages.filter((m) => m.role === "assistant");
      expect(assistant.map((m) => m.reasoning_content)).toEqual(["The user wants a.txt; read it first.", undefined]);
      const state = await sessionState(ws.root, "t1");
      expect(state.messages.filter((m) => m.role === "assistant").map((m) => (m.role === "assistant" ? m.reasoning?.text : ""))).toEqual([
        "The user wants a.txt; read it first.",
        undefined,
        undefined,
      ]);
    });

  for (const stream of [true, false])
    it(`a Gemini-style server gets each tool call's extra_content (its thought signature) back verbatim (stream: ${stream})`, async () => {
      ws = makeWorkspace({ "a.txt": "AAA", "b.txt": "BBB" }, { git: true });
      ws.writeUserConfig({ model: { name: "gemini-3-flash", baseUrl: server.baseUrl, apiKeyEnv: "KEEL_TEST_KEY", stream } });
      const sig = (s: string) => ({ google: { thought_signature: s, other: [1, { x: true }] } });
      server.push(
        {
          toolCalls: [
            { id: "g1", name: "read_file", arguments: { path: "a.txt" }, extraContent: sig("SIG-A") },
            { id: "g2", name: "read_file", arguments: { path: "b.txt" }, extraContent: sig("SIG-B") },
          ],
        },
        { requireSignatureBack: true, toolCalls: [{ id: "g3", name: "read_file", arguments: { path: "a.txt" }, extraContent: sig("SIG-C") }] },
        { requireSignatureBack: true, text: "both read" },
      );
      const r = await runKeel(["--yes", "run", "read both"], { cwd: ws.root, env: { ...ws.env, KEEL_TEST_KEY: "k" } });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toContain("both read");
      const sent = server.requests.at(-1)!.messages.flatMap((m) => m.tool_calls ?? []);
      expect(sent.map((c) => [c.id, c.extra_content])).toEqual([
        ["g1", sig("SIG-A")],
        ["g2", sig("SIG-B")],
        ["g3", sig("SIG-C")],
      ]);
    });

  for (const stream of [true, false])
    it(`OpenRouter's reasoning_details (text with its signature, encrypted blocks) go back whole with the tool calls (stream: ${stream})`, async () => {
      ws = makeWorkspace({ "a.txt": "AAA" }, { git: true });
      ws.writeUserConfig({ model: { name: "anthropic/claude-sonnet-4", baseUrl: server.baseUrl, apiKeyEnv: "KEEL_TEST_KEY", stream } });
      const details = [
        { type: "reasoning.text", text: "I should read a.txt before answering.", signature: "SIG-1", format: "anthropic-claude-v1" },
        { type: "reasoning.encrypted", data: "ENCRYPTED-BLOB", format: "anthropic-claude-v1" },
      ];
      server.push(
        {
          reasoning: { field: "reasoning", text: "I should read a.txt before answering." },
          reasoningDetails: details,
          toolCalls: [{ id: "o1", name: "read_file", arguments: { path: "a.txt" } }],
        },
        { requireDetailsBack: true, text: "AAA it is" },
      );
      const r = await runKeel(["--yes", "run", "read it"], { cwd: ws.root, env: { ...ws.env, KEEL_TEST_KEY: "k" } });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toContain("AAA it is");
      const sent = server.requests.at(-1)!.messages.find((m) => m.role === "assistant" && m.tool_calls?.length)!;
      expect(sent.reasoning).toBe("I should read a.txt before answering.");
      const strip = (d: Record<string, unknown>) => Object.fromEntries(Object.entries(d).filter(([k]) => k !== "index"));
      expect((sent.reasoning_details as Record<string, unknown>[]).map(strip)).toEqual(details);
    });

  it("reasoning and signatures go back only to the model that produced them: resumed with another model, the session sends neither", async () => {
    ws = makeWorkspace({ "a.txt": "AAA" }, { git: true });
    ws.writeUserConfig({ model: { name: "deepseek-v4-flash", baseUrl: server.baseUrl, apiKeyEnv: "KEEL_TEST_KEY" } });
    const env = { ...ws.env, KEEL_TEST_KEY: "k" };
    server.push(
      {
        reasoning: { text: "read it" },
        toolCalls: [{ id: "c1", name: "read_file", arguments: { path: "a.txt" }, extraContent: { google: { thought_signature: "S" } } }],
      },
      { text: "AAA" },
    );
    expect((await runKeel(["--yes", "run", "--session", "sw", "go"], { cwd: ws.root, env })).exitCode).toBe(0);
    // the origin is recorded as a hash: a base URL may carry credentials
    const port = new URL(server.baseUrl).port;
    expect(readFileSync(ws.path(".keel", "sessions", "sw", "events.jsonl"), "utf8").includes(`127.0.0.1:${port}`)).toBe(false);
    server.push({ text: "other model here" });
    const other = await runKeel(["--yes", "run", "--resume", "sw", "--model", "another-model", "and now?"], { cwd: ws.root, env });
    expect(other.exitCode, other.stderr).toBe(0);
    const last = server.requests.at(-1)!;
    expect(last.model).toBe("another-model");
    const sent = last.messages.find((m) => m.role === "assistant" && m.tool_calls?.length)!;
    expect(sent.reasoning_content).toBeUndefined();
    expect(sent.tool_calls!.map((c) => "extra_content" in c)).toEqual([false]);
    // back on the model that produced them, they are sent again
    server.push({ requireReasoningBack: true, requireSignatureBack: true, text: "same model again" });
    const same = await runKeel(["--yes", "run", "--resume", "sw", "once more"], { cwd: ws.root, env });
    expect(same.exitCode, same.stderr).toBe(0);
    expect(same.stdout).toContain("same model again");
  });

  it("a signature is recorded once, with its message, not again with every save of the pending calls", async () => {
    ws = makeWorkspace({}, { git: true });
    ws.writeUserConfig({ model: { name: "gemini-3-flash", baseUrl: server.baseUrl, apiKeyEnv: "KEEL_TEST_KEY" } });
    const env = { ...ws.env, KEEL_TEST_KEY: "k" };
    server.push({
      toolCalls: [{ id: "b1", name: "bash", arguments: { command: "echo hi" }, extraContent: { google: { thought_signature: "ONCE-ONLY-SIG" } } }],
    });
    // bash asks for approval: the run pauses with the call pending (saved), then approval runs it (saved again)
    expect((await runKeel(["run", "--session", "p1", "go"], { cwd: ws.root, env })).exitCode).toBe(0);
    server.push({ requireSignatureBack: true, text: "done" });
    const ok = await runKeel(["sessions", "approve", "p1"], { cwd: ws.root, env });
    expect(ok.exitCode, ok.stderr).toBe(0);
    const log = readFileSync(ws.path(".keel", "sessions", "p1", "events.jsonl"), "utf8");
    expect(log.split("ONCE-ONLY-SIG").length - 1).toBe(1);
  });

  it("reasoning in a `reasoning` field (newer vLLM, OpenRouter) goes back in that field; a server that sends none gets none", async () => {
    ws = makeWorkspace({ "a.txt": "AAA" }, { git: true });
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl, apiKeyEnv: "KEEL_TEST_KEY" } });
    server.push(
      { reasoning: { field: "reasoning", text: "read it" }, toolCalls: [{ id: "c1", name: "read_file", arguments: { path: "a.txt" } }] },
      { toolCalls: [{ id: "c2", name: "read_file", arguments: { path: "a.txt" } }] },
      { text: "done" },
    );
    const r = await runKeel(["--yes", "run", "go"], { cwd: ws.root, env: { ...ws.env, KEEL_TEST_KEY: "k" } });
    expect(r.exitCode, r.stderr).toBe(0);
    const assistant = server.requests.at(-1)!.messages.filter((m) => m.role === "assistant");
    expect(assistant.map((m) => [m.reasoning, m.reasoning_content])).toEqual([
      ["read it", undefined],
      [undefined, undefined],
    ]);
    // nor extra_content to a server that sent none
    expect(assistant.flatMap((m) => m.tool_calls ?? []).map((c) => "extra_content" in c)).toEqual([false, false]);
  });
});
