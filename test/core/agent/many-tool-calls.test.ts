import { execa } from "execa";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { useOpenAIServer } from "../../helpers/openai-server.js";
import { KEEL_BIN, runKeel } from "../../helpers/run-cli.js";
import { sessionState } from "../../helpers/session-state.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const server = useOpenAIServer();
let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

/** `n` calls of read_file in one response (what a prompt injection can ask a model for). */
const reads = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `r${i}`, name: "read_file", arguments: { path: "a.txt" } }));

describe("a model response with very many tool calls (real openai client, local server)", () => {
  it("agent.budgets.maxToolCalls is checked before each call: the rest of one response's calls are answered 'not run'", async () => {
    ws = makeWorkspace({ "a.txt": "AAA" }, { git: true });
    const env = { ...ws.env, KEEL_TEST_KEY: "k" };
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl, apiKeyEnv: "KEEL_TEST_KEY" }, agent: { budgets: { maxToolCalls: 3 } } });
    server.push({ toolCalls: reads(20) }); // stopped by the budget before any further reply
    const r = await runKeel(["--yes", "--json", "run", "--session", "b1", "read"], { cwd: ws.root, env });
    const out = JSON.parse(r.stdout) as { reason: string; usage: { toolCalls: number } };
    // Old code: all 20 ran in one step (toolCalls 20).
    expect(out.usage.toolCalls).toBe(3);
    expect(out.reason).toBe("budget");
    const state = await sessionState(ws.root, "b1");
    const results = state.messages.filter((m) => m.role === "tool");
    // every call has its result (the protocol needs one), the ones not run say why
    expect(results.map((m) => (m as { toolCallId: string }).toolCallId)).toEqual(reads(20).map((c) => c.id));
    expect(results.slice(0, 3).every((m) => m.content === "AAA")).toBe(true);
    expect(results.slice(3).every((m) => m.content.startsWith("Not run: the session used up its budget agent.budgets.maxToolCalls (3)"))).toBe(true);
    expect(state.pending).toBeNull();
  });

  it("runs at most 100 calls of one response; the rest are answered 'not run' and the session log stays small", async () => {
    ws = makeWorkspace({ "a.txt": "AAA" }, { git: true });
    const env = { ...ws.env, KEEL_TEST_KEY: "k" };
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl, apiKeyEnv: "KEEL_TEST_KEY" } });
    server.push({ toolCalls: reads(1200) }, { text: "done" });
    const before = server.requests.length;
    const r = await runKeel(["--yes", "--json", "run", "--session", "c1", "read"], { cwd: ws.root, env });
    const out = JSON.parse(r.stdout) as { reason: string; text: string; usage: { toolCalls: number } };
    expect(out.reason).toBe("answer");
    // Old code: all 1200 ran, and the pending list was logged again after each (about 75 MB of log).
    expect(out.usage.toolCalls).toBe(100);
    expect(statSync(join(ws.root, ".keel/sessions/c1/events.jsonl")).size).toBeLessThan(8 * 2 ** 20);
    // the model got a result for each of its calls, in their order
    const sent = server.requests[before + 1]!.messages.filter((m) => m.role === "tool");
    expect(sent.map((m) => m.tool_call_id)).toEqual(reads(1200).map((c) => c.id));
    expect(sent[99]!.content).toBe("AAA");
    expect(sent[100]!.content).toBe("Not run: keel runs at most 100 tool calls of one response. Make the calls you still need in your next response.");
  });

  it("a crash while running them, then --resume: the calls past 100 are answered 'not run', every call has a result", async () => {
    const calls = [{ id: "slow", name: "bash", arguments: { command: "echo ran >> count.txt; sleep 120" } }, ...reads(100)];
    ws = makeWorkspace({ "a.txt": "AAA", "script.json": [{ toolCalls: calls }, { text: "continuing" }] }, { git: true });
    const child = execa("node", [KEEL_BIN, "run", "--yes", "--model", "scripted:script.json", "--session", "k1", "go"], {
      cwd: ws.root,
      env: ws.env,
      reject: false,
      stdin: "ignore",
    });
    for (let i = 0; i < 1200 && !existsSync(ws.path("count.txt")); i++) await new Promise((r) => setTimeout(r, 50));
    child.kill("SIGKILL");
    await child;
    const r = await runKeel(["run", "--resume", "k1", "--yes", "--model", "scripted:script.json"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const state = await sessionState(ws.root, "k1");
    const results = state.messages.filter((m) => m.role === "tool") as { toolCallId: string; content: string }[];
    // Old code (with the cap alone): the 101st call was left without a result.
    expect(results.map((m) => m.toolCallId)).toEqual(calls.map((c) => c.id));
    expect(results[0]!.content).toMatch(/Outcome unknown/);
    expect(results[100]!.content).toMatch(/^Not run: keel runs at most 100 tool calls/);
  });
});
