import { afterAll, describe, expect, it } from "vitest";
import { readEvents } from "../../../core/events.js";
import type { KeelPlugin } from "../../../core/host.js";
import type { ApprovalRequest } from "../../../core/types.js";
import { sessionState } from "../../helpers/session-state.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { openTestHost } from "../../helpers/test-host.js";

/** These workspaces' keel.config.json picks a scripted model, which only a trusted workspace may do. */
const TRUSTED = { trust: true };

const spaces: TempWorkspace[] = [];
afterAll(() => spaces.forEach((w) => w.cleanup()));
function ws(files: Record<string, string | object>): TempWorkspace {
  const w = makeWorkspace(files);
  spaces.push(w);
  return w;
}
const bashTurn = (cmd: string) => ({ toolCalls: [{ name: "bash", arguments: { command: cmd } }] });

describe("AgentService, inline approvals, budgets and plugin session state", () => {
  it('provides "agent" for workflow prompt steps when a model is configured, and not otherwise', async () => {
    const w = ws({ "s.json": [{ text: "workflow answer" }], "keel.config.json": { model: "scripted:s.json" } });
    const host = await openTestHost(w, TRUSTED);
    try {
      const agent = host.service("agent")!;
      const res = await agent.runPrompt({ prompt: "summarize", parentSessionId: "not-a-session" });
      expect(res).toMatchObject({ ok: true, text: "workflow answer", reason: "answer" });
      expect(res.sessionId).toMatch(/^s-/);
    } finally {
      await host.close();
    }
    const none = ws({});
    const bare = await openTestHost(none, { env: { ...none.env, OPENAI_API_KEY: "", OPENAI_BASE_URL: "" } });
    try {
      expect(bare.service("agent")).toBeUndefined();
    } finally {
      await bare.close();
    }
  });

  it("a workflow prompt step runs a model turn through the agent service (keel workflow run)", async () => {
    const w = ws({
      "s.json": [{ text: "workflow model answer" }],
      "keel.config.json": { model: "scripted:s.json" },
      ".keel/workflows/sum.json": { name: "sum", steps: [{ id: "ask", prompt: "Summarize the repo" }] },
    });
    const r = await runKeel(["--trust", "workflow", "run", "sum", "--json"], { cwd: w.root, env: w.env });
    expect(r.exitCode).toBe(0);
    expect(r.json().steps[0]).toMatchObject({ kind: "prompt", status: "succeeded", summary: "workflow model answer" });
    const list = await runKeel(["sessions", "list", "--json"], { cwd: w.root, env: w.env });
    expect(list.json().sessions[0]).toMatchObject({ status: "idle", reason: "answer", title: "Summarize the repo" });
  });

  it("an inline 'always' approves the tool for the rest of the session (and is persisted)", async () => {
    const w = ws({ "s.json": [bashTurn("echo 1 >> n.txt"), bashTurn("echo 2 >> n.txt"), { text: "done" }], "keel.config.json": { model: "scripted:s.json" } });
    const asked: ApprovalRequest[] = [];
    const host = await openTestHost(w, TRUSTED);
    try {
      const out = await host.service("agent-runtime")!.start({ prompt: "go", approver: { approve: async (r) => (asked.push(r), "always") } });
      expect(out.reason).toBe("answer");
      expect(asked).toHaveLength(1);
      expect(w.read("n.txt")).toBe("1\n2\n");
      const state = await sessionState(w.root, out.sessionId);
      expect(state.sessionAllow).toContain("bash");
    } finally {
      await host.close();
    }
  });

  it("an inline 'no' reaches the model as user_denied", async () => {
    const w = ws({ "s.json": [bashTurn("echo x > x.txt"), { text: "ok" }], "keel.config.json": { model: "scripted:s.json" } });
    const host = await openTestHost(w, TRUSTED);
    try {
      const out = await host.service("agent-runtime")!.start({ prompt: "go", approver: { approve: async () => "no" } });
      const state = await sessionState(w.root, out.sessionId);
      expect(state.messages.find((m) => m.role === "tool")!.content).toMatch(/user_denied/);
      expect(w.exists("x.txt")).toBe(false);
    } finally {
      await host.close();
    }
  });

  it("stops on the tool-call budget and fires afterTurn with the reason", async () => {
    const turns = Array.from({ length: 6 }, () => ({ toolCalls: [{ name: "read_file", arguments: { path: "s.json" } }] }));
    const w = ws({ "s.json": turns, "keel.config.json": { model: "scripted:s.json", agent: { budgets: { maxToolCalls: 2 } } } });
    const host = await openTestHost(w, TRUSTED);
    try {
      const out = await host.service("agent-runtime")!.start({ prompt: "loop" });
      expect(out.reason).toBe("budget");
      expect(out.usage.toolCalls).toBe(2);
      expect(out.message).toContain("agent.budgets.maxToolCalls (2)");
      expect(out.message).toContain(`keel run --resume ${out.sessionId}`);
      const events = readEvents(w.path(".keel", "sessions", out.sessionId, "events.jsonl"));
      expect(events.filter((e) => e.type === "after_turn").map((e) => e.reason)).toEqual(["budget"]);
    } finally {
      await host.close();
    }
  });

  it("plugin per-session state survives resume", async () => {
    const w = ws({ "s.json": [{ text: "a" }, { text: "b" }], "keel.config.json": { model: "scripted:s.json" } });
    const counter: KeelPlugin = {
      name: "counter",
      apply(host) {
        host.hooks.beforePrompt.tapPromise("counter", async (ctx) => {
          const st = host.service("session-state")!.get(ctx.sessionId!)!;
          st.counter = Number(st.counter ?? 0) + 1;
          ctx.guidance.push({ source: "counter", text: `run number ${String(st.counter)}` });
          return ctx;
        });
      },
    };
    const open = async () => (await openTestHost(w, TRUSTED)).use(counter);
    let host = await open();
    const rt = () => host.service("agent-runtime")!;
    const first = await rt().start({ prompt: "one" });
    await host.close();
    host = await open();
    await rt().resume(first.sessionId, { prompt: "two" });
    await host.close();
    const state = await sessionState(w.root, first.sessionId);
    expect(state.pluginState.counter).toBe(2);
    expect(state.messages.some((m) => m.content.includes("- counter: run number 2"))).toBe(true);
  });
});
