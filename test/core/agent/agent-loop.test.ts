import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentRuntime } from "../../../core/agent/agent-runtime.js";
import { readEvents } from "../../../core/events.js";
import { sessionState } from "../../helpers/session-state.js";
import { requestText, startOpenAIServer, type OpenAIServer } from "../../helpers/openai-server.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { openTestHost } from "../../helpers/test-host.js";

const demoPlugin = {
  name: "demo",
  hooks: {
    beforePrompt: "Always cite file paths.",
    onResume: "Welcome back, re-check the notes.",
    afterTurn: "AFTER-TURN-NOTE never for the model.",
    beforePersist: "persist-marker-demo",
  },
  tool_aliases: [{ name: "cat", base_tool: "read_file", description: "Read a file (alias)" }],
  virtual_tools: [
    {
      name: "ticket_status",
      description: "Status of a ticket",
      response_template: "Ticket {id} is open",
      parameters: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
    },
  ],
  tool_hooks: { cat: { beforeTool: "Reading through the cat alias.", afterResult: "Summarize what you read." } },
  blocked_tools: ["bash"],
};

let server: OpenAIServer;
let ws: TempWorkspace;

beforeAll(async () => {
  server = await startOpenAIServer();
  ws = makeWorkspace({
    "notes.txt": "hello from the notes\n",
    "plugins/demo/plugin.json": demoPlugin,
  });
  ws.writeUserConfig({ model: { name: "local-model", baseUrl: server.baseUrl, contextWindow: 64000 } });
});
afterAll(async () => {
  await server.close();
  ws.cleanup();
});

async function withRuntime<T>(fn: (rt: AgentRuntime) => Promise<T>): Promise<T> {
  const host = await openTestHost(ws);
  try {
    return await fn(host.service("agent-runtime")!);
  } finally {
    await host.close();
  }
}

describe("agent loop through the real openai client and the plugin runtime", () => {
  it("reads via a plugin alias, calls a virtual tool, is blocked by a plugin, answers; hook and guidance texts reach the model", async () => {
    server.push(
      {
        text: "Looking.",
        toolCalls: [
          { id: "c1", name: "cat", arguments: { path: "notes.txt" } },
          { id: "c2", name: "ticket_status", arguments: { id: "T-1" } },
          { id: "c3", name: "bash", arguments: { command: "echo hi" } },
        ],
      },
      { text: "The notes say hello; ticket T-1 is open; the shell is blocked." },
    );
    const first = server.requests.length;
    const streamed: string[] = [];
    const out = await withRuntime((rt) => rt.start({ prompt: "Check the notes and ticket T-1", onText: (d) => streamed.push(d) }));
    expect(out.reason).toBe("answer");
    expect(out.text).toBe("The notes say hello; ticket T-1 is open; the shell is blocked.");
    expect(streamed.join("")).toContain("The notes say hello");

    const [r1, r2] = server.requests.slice(first);
    expect(r1!.stream).toBe(true);
    const m1 = r1!.messages;
    expect(m1[0]!.role).toBe("system");
    const hookIdx = m1.findIndex((m) => m.content?.startsWith("Plugin before-prompt hooks:"));
    const promptIdx = m1.findIndex((m) => m.content === "Check the notes and ticket T-1");
    expect(hookIdx).toBeGreaterThan(0);
    expect(m1[hookIdx]!.content).toContain("- demo: Always cite file paths.");
    expect(hookIdx).toBeLessThan(promptIdx);
    expect(r1!.tools!.map((t) => t.function.name)).toEqual(expect.arrayContaining(["cat", "ticket_status", "read_file"]));
    expect(r1!.tools!.map((t) => t.function.name)).not.toContain("bash");

    const m2 = r2!.messages;
    const tool = (id: string) => m2.find((m) => m.role === "tool" && m.tool_call_id === id)!.content!;
    expect(tool("c1")).toContain("hello from the notes");
    expect(tool("c2")).toContain("Ticket T-1 is open");
    expect(tool("c3")).toMatch(/tool_blocked/);
    const lastTool = m2.map((m) => m.role).lastIndexOf("tool");
    const guidance = m2.slice(lastTool + 1).map((m) => m.content ?? "");
    const catGuidance = guidance.find((g) => g.startsWith("Plugin tool runtime guidance for `cat`:"))!;
    expect(catGuidance).toContain("- Before tool: demo: Reading through the cat alias.");
    expect(catGuidance).toContain("- After result: demo: Summarize what you read.");
    expect(guidance.find((g) => g.startsWith("Plugin tool runtime guidance for `bash`:"))).toMatch(/- Blocked: demo: Plugin demo blocked tool bash/);
    for (const r of server.requests.slice(first)) expect(requestText(r)).not.toContain("AFTER-TURN-NOTE");

    const dir = ws.path(".keel", "sessions", out.sessionId);
    const events = readEvents(`${dir}/events.jsonl`);
    const types = events.map((e) => e.type);
    for (const t of ["session_start", "model_call", "model_response", "tool_intent", "tool_execute", "tool_observation", "after_turn"])
      expect(types).toContain(t);
    expect(types.filter((t) => t === "after_turn")).toHaveLength(1);
    expect(JSON.stringify(events.find((e) => e.type === "after_turn"))).toContain("AFTER-TURN-NOTE");
    const state = await sessionState(ws.root, out.sessionId);
    expect(state.status).toBe("idle");
    expect(events.some((e) => e.type === "hook" && e.hook === "beforePersist" && JSON.stringify(e.texts).includes("persist-marker-demo"))).toBe(true);
    expect(events.filter((e) => e.type === "session_message" && e.message.role === "tool")).toHaveLength(3);
    const meta = JSON.parse(readFileSync(`${dir}/session.json`, "utf8"));
    expect(meta).toMatchObject({ id: out.sessionId, depth: 0, model: { kind: "openai", name: "local-model" } });
    expect(meta.toolMenuHash).toMatch(/^[0-9a-f]{16}$/);

    // resume: onResume and beforePrompt texts come before the new prompt
    server.push({ text: "Resumed fine." });
    const before = server.requests.length;
    const again = await withRuntime((rt) => rt.resume(out.sessionId, { prompt: "And now?" }));
    expect(again.text).toBe("Resumed fine.");
    const m3 = server.requests[before]!.messages;
    const resumeIdx = m3.findIndex((m) => m.content?.startsWith("Plugin resume hooks:"));
    expect(m3[resumeIdx]!.content).toContain("- demo: Welcome back, re-check the notes.");
    expect(resumeIdx).toBeLessThan(m3.findIndex((m) => m.content === "And now?"));
    expect(m3.filter((m) => m.content?.startsWith("Plugin before-prompt hooks:"))).toHaveLength(2);
    expect(m3.some((m) => m.content === "Check the notes and ticket T-1")).toBe(true);
  });

  it("a model error ends the turn with afterTurn and an error the user can act on", async () => {
    server.push({ status: 404, errorMessage: "model not found" });
    const out = await withRuntime((rt) => rt.start({ prompt: "hi" }));
    expect(out.reason).toBe("error");
    expect(out.text).toMatch(/model\.name/);
    const events = readEvents(ws.path(".keel", "sessions", out.sessionId, "events.jsonl"));
    expect(events.filter((e) => e.type === "after_turn").map((e) => e.reason)).toEqual(["error"]);
    expect(events.some((e) => e.type === "model_error")).toBe(true);
  });

  it("stops at max steps and budgets, and refuses a second writer", async () => {
    server.push(
      { toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] },
      { toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] },
    );
    const out = await withRuntime((rt) => rt.start({ prompt: "loop", maxSteps: 2 }));
    expect(out.reason).toBe("max_steps");
    expect(out.usage.modelCalls).toBe(2);
    const { acquireSessionLock } = await import("../../../core/session/session-lock.js");
    const lock = await acquireSessionLock(ws.path(".keel", "sessions", out.sessionId, "writer.lock"), out.sessionId);
    try {
      await expect(withRuntime((rt) => rt.resume(out.sessionId, { prompt: "more" }))).rejects.toThrow(/is busy/);
    } finally {
      lock.release();
    }
  });
});
