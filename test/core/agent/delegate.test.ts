import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readEvents } from "../../../core/events.js";
import type { SessionMeta } from "../../../core/session/session-types.js";
import { sessionState } from "../../helpers/session-state.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { openTestHost } from "../../helpers/test-host.js";

/** These workspaces' keel.config.json picks a scripted model, which only a trusted workspace may do. */
const TRUSTED = { trust: true };

const spaces: TempWorkspace[] = [];
afterAll(() => spaces.forEach((w) => w.cleanup()));

describe("delegate_agent", () => {
  it("a delegated child in a worktree edits a file without touching the parent checkout", async () => {
    const ws = makeWorkspace(
      {
        "a.txt": "original\n",
        "plugins/deleg/plugin.json": {
          name: "deleg",
          hooks: { beforeDelegate: "Child: keep changes small.", afterDelegate: "Parent: review the child's diff." },
        },
        "script.json": {
          turns: [
            { toolCalls: [{ id: "d1", name: "delegate_agent", arguments: { prompt: "CHILD-TASK: change a.txt to say edited", isolation: "worktree" } }] },
            { text: "The child edited a.txt in its worktree." },
          ],
          byPrompt: {
            "CHILD-TASK": [
              { toolCalls: [{ id: "r1", name: "read_file", arguments: { path: "a.txt" } }] },
              { toolCalls: [{ id: "e1", name: "write_file", arguments: { path: "a.txt", content: "edited\n" } }] },
              { text: "a.txt now says edited." },
            ],
          },
        },
        "keel.config.json": { model: "scripted:script.json" },
      },
      { git: true },
    );
    spaces.push(ws);
    const host = await openTestHost(ws, TRUSTED);
    let out;
    try {
      out = await host.service("agent-runtime")!.start({ prompt: "Delegate the edit", yes: true });
    } finally {
      await host.close();
    }
    expect(out.reason).toBe("answer");
    expect(ws.read("a.txt")).toBe("original\n");
    expect(ws.git("status", "--porcelain", "-uall").trim()).toBe("");
    const parentEvents = readEvents(ws.path(".keel", "sessions", out.sessionId, "events.jsonl"));
    expect(parentEvents.find((e) => e.type === "tool_observation" && e.callId === "d1")).toMatchObject({ ok: true });
    const end = parentEvents.find((e) => e.type === "delegate_end")!;
    if (end.type !== "delegate_end") throw new Error("no delegate_end event");
    expect(end.changedFiles).toContain("a.txt");
    const childMeta = JSON.parse(readFileSync(ws.path(".keel", "sessions", end.childSessionId, "session.json"), "utf8")) as SessionMeta;
    expect(childMeta).toMatchObject({ parentSessionId: out.sessionId, depth: 1, cwd: childMeta.worktree!.path });
    expect(readFileSync(join(childMeta.worktree!.path, "a.txt"), "utf8")).toBe("edited\n");
    const parent = await sessionState(ws.root, out.sessionId);
    const result = parent.messages.find((m) => m.role === "tool" && m.toolCallId === "d1")!.content;
    expect(result).toContain(childMeta.worktree!.path);
    expect(result).toContain("a.txt now says edited.");
    expect(result).toContain("deleg: Parent: review the child's diff.");
    const child = await sessionState(ws.root, end.childSessionId);
    const prompt = child.messages.find((m) => m.role === "user" && m.kind === "prompt")!;
    expect(prompt.content).toMatch(/^deleg: Child: keep changes small\.[\s\S]*CHILD-TASK/);
    expect(readEvents(ws.path(".keel", "sessions", end.childSessionId, "events.jsonl")).some((e) => e.type === "tool_execute" && e.tool === "write_file")).toBe(
      true,
    );
  });

  it("children coordinate with the parent through the team runtime", async () => {
    const ws = makeWorkspace({
      "script.json": {
        turns: [
          { toolCalls: [{ name: "team_create", arguments: { team_name: "crew", members: ["lead", "helper"] } }] },
          { toolCalls: [{ id: "d1", name: "delegate_agent", arguments: { prompt: "HELPER: report to the crew", tools: ["send_message"] } }] },
          { toolCalls: [{ id: "m1", name: "team_messages", arguments: { team_name: "crew" } }] },
          { text: "The helper reported." },
        ],
        byPrompt: {
          "HELPER:": [
            { toolCalls: [{ name: "send_message", arguments: { team_name: "crew", sender: "helper", message: "helper finished the survey" } }] },
            { text: "sent" },
          ],
        },
      },
    });
    spaces.push(ws);
    const host = await openTestHost(ws, TRUSTED);
    try {
      // the model comes from --model only: the child inherits the parent's
      const out = await host.service("agent-runtime")!.start({ prompt: "coordinate", yes: true, model: "scripted:script.json" });
      expect(out.reason).toBe("answer");
      const state = await sessionState(ws.root, out.sessionId);
      expect(state.messages.find((m) => m.role === "tool" && m.toolCallId === "d1")!.content).toContain("sent");
      expect(state.messages.find((m) => m.role === "tool" && m.toolCallId === "m1")!.content).toContain("helper finished the survey");
    } finally {
      await host.close();
    }
  });

  it("a sub-agent never gets a tool its parent may not use (the parent's tool subset bounds the child's)", async () => {
    const ws = makeWorkspace({
      "a.txt": "x\n",
      "script.json": {
        turns: [
          { toolCalls: [{ id: "d1", name: "delegate_agent", arguments: { prompt: "NARROW: run it", tools: ["bash", "read_file"] } }] },
          { toolCalls: [{ id: "d2", name: "delegate_agent", arguments: { prompt: "WIDE: run it" } }] },
          { text: "done" },
        ],
        byPrompt: { NARROW: [{ text: "narrow child" }], WIDE: [{ text: "wide child" }] },
      },
      "keel.config.json": { model: "scripted:script.json" },
    });
    spaces.push(ws);
    const host = await openTestHost(ws, TRUSTED);
    try {
      const out = await host.service("agent-runtime")!.start({ prompt: "delegate twice", yes: true, tools: ["delegate_agent", "read_file"] });
      const starts = readEvents(ws.path(".keel", "sessions", out.sessionId, "events.jsonl")).filter((e) => e.type === "delegate_start");
      expect(starts.map((e) => ("tools" in e ? e.tools : undefined))).toEqual([["read_file"], ["delegate_agent", "read_file"]]);
      const children = readEvents(ws.path(".keel", "sessions", out.sessionId, "events.jsonl"))
        .filter((e) => e.type === "delegate_end")
        .map((e) => ("childSessionId" in e ? e.childSessionId : ""));
      const subsets = await Promise.all(children.map(async (id) => (await sessionState(ws.root, id)).toolSubset));
      expect(subsets).toEqual([["read_file"], ["delegate_agent", "read_file"]]);
    } finally {
      await host.close();
    }
  });

  it("a workflow's model turn started by a sub-agent gets no tool the sub-agent may not use (a prompt command through workflow_run)", async () => {
    const ws = makeWorkspace({
      ".claude/commands/review.md": "---\ndescription: Review the code\n---\nReview this: $ARGUMENTS",
      "script.json": {
        turns: [
          { toolCalls: [{ id: "d1", name: "delegate_agent", arguments: { prompt: "SUB: review it", tools: ["read_file", "workflow_run"] } }] },
          { text: "parent done" },
        ],
        byPrompt: {
          "SUB:": [
            { toolCalls: [{ id: "w1", name: "workflow_run", arguments: { workflow_name: "review", arguments: { arguments: "TURN: now run bash" } } }] },
            { text: "sub done" },
          ],
          "TURN:": [{ toolCalls: [{ id: "b1", name: "bash", arguments: { command: "echo escaped > escaped.txt" } }] }, { text: "turn done" }],
        },
      },
      "keel.config.json": { model: "scripted:script.json" },
    });
    spaces.push(ws);
    const host = await openTestHost(ws, TRUSTED);
    try {
      const out = await host.service("agent-runtime")!.start({ prompt: "delegate a review", yes: true });
      expect(out.reason).toBe("answer");
    } finally {
      await host.close();
    }
    expect(ws.exists("escaped.txt")).toBe(false);
    const sessions = readdirSync(ws.path(".keel", "sessions"));
    const turn = sessions.find((id) =>
      readEvents(ws.path(".keel", "sessions", id, "events.jsonl")).some((e) => e.type === "tool_intent" && e.callId === "b1"),
    )!;
    expect((await sessionState(ws.root, turn)).toolSubset).toEqual(["read_file", "workflow_run"]);
    expect(readEvents(ws.path(".keel", "sessions", turn, "events.jsonl")).find((e) => e.type === "tool_visibility" && e.callId === "b1")).toMatchObject({
      visible: false,
    });
  });

  it("a sub-agent's max_steps is capped at the parent's own limit per turn (agent.maxSteps)", async () => {
    const read = { toolCalls: [{ name: "read_file", arguments: { path: "a.txt" } }] };
    const ws = makeWorkspace({
      "a.txt": "x\n",
      "script.json": {
        turns: [{ toolCalls: [{ id: "d1", name: "delegate_agent", arguments: { prompt: "LONG: keep reading", max_steps: 100 } }] }, { text: "parent done" }],
        byPrompt: { "LONG:": [read, read, read, read, { text: "child ran 5 steps" }] },
      },
      "keel.config.json": { model: "scripted:script.json", agent: { maxSteps: 3 } },
    });
    spaces.push(ws);
    const host = await openTestHost(ws, TRUSTED);
    let parent: string;
    try {
      const out = await host.service("agent-runtime")!.start({ prompt: "delegate", yes: true });
      expect(out.reason).toBe("answer");
      parent = out.sessionId;
    } finally {
      await host.close();
    }
    const end = readEvents(ws.path(".keel", "sessions", parent, "events.jsonl"));
    const child = end.find((e) => e.type === "delegate_end") as { childSessionId: string; reason: string };
    expect(child.reason).toBe("max_steps");
    expect((await sessionState(ws.root, child.childSessionId)).usage.modelCalls).toBe(3);
  });

  it("agent.budgets bound a session together with its sub-agents: fanning out over children never lifts them, also after a resume", async () => {
    const read = { toolCalls: [{ name: "read_file", arguments: { path: "a.txt" } }] };
    const child = [read, read, read, read, { text: "child done" }];
    const ws = makeWorkspace({
      "a.txt": "x\n",
      "script.json": {
        turns: [
          { toolCalls: [{ id: "d1", name: "delegate_agent", arguments: { prompt: "FIRST: read" } }] },
          { toolCalls: [{ id: "d2", name: "delegate_agent", arguments: { prompt: "SECOND: read" } }] },
          { toolCalls: [{ id: "d3", name: "delegate_agent", arguments: { prompt: "THIRD: read" } }] },
          { text: "parent done" },
        ],
        byPrompt: { "FIRST:": child, "SECOND:": child, "THIRD:": child },
      },
      "keel.config.json": { model: "scripted:script.json", agent: { budgets: { maxToolCalls: 3 } } },
    });
    spaces.push(ws);
    const reads = () =>
      readdirSync(ws.path(".keel", "sessions"))
        .flatMap((id) => readEvents(ws.path(".keel", "sessions", id, "events.jsonl")))
        .filter((e) => e.type === "tool_execute" && e.tool === "read_file").length;
    let host = await openTestHost(ws, TRUSTED);
    let parent: string;
    try {
      const out = await host.service("agent-runtime")!.start({ prompt: "fan out", yes: true });
      parent = out.sessionId;
      // the first child gets all 3 (the parent's delegate_agent call counts once it ends) and stops there; so does the parent
      expect(out.reason).toBe("budget");
      expect(out.treeUsage.toolCalls).toBe(4);
    } finally {
      await host.close();
    }
    expect(reads()).toBe(3);
    const events = readEvents(ws.path(".keel", "sessions", parent, "events.jsonl"));
    const ends = events.filter((e) => e.type === "delegate_end") as { childSessionId: string; reason: string }[];
    expect(ends.map((e) => e.reason)).toEqual(["budget"]);
    const first = await sessionState(ws.root, ends[0]!.childSessionId);
    expect(first.budgets).toEqual({ maxToolCalls: 3 });
    const observed = (await sessionState(ws.root, parent)).messages.find((m) => m.role === "tool" && m.toolCallId === "d1")!.content;
    expect(observed).toContain("what its parent session had left of agent.budgets.maxToolCalls (3)");
    // The parent's model reads it: the decision to raise a budget is the user's, and how to raise it is not named.
    expect(observed).toContain("Raising a budget is the user's decision, not yours");
    expect(observed).not.toMatch(/keel config set|--resume/);
    // What the child used is recorded in the parent's log: a resume stops at once, with no model call and no child.
    host = await openTestHost(ws, TRUSTED);
    try {
      const again = await host.service("agent-runtime")!.resume(parent, { prompt: "go on", yes: true });
      expect(again.reason).toBe("budget");
      expect(again.usage.modelCalls).toBe(1);
    } finally {
      await host.close();
    }
    expect(reads()).toBe(3);
  });

  it("enforces the depth limit of 3 and hides delegate_agent at the limit", async () => {
    const ws = makeWorkspace({
      "s.json": [{ text: "done" }, { text: "done" }, { text: "done" }, { text: "done" }],
      "keel.config.json": { model: "scripted:s.json" },
    });
    spaces.push(ws);
    const host = await openTestHost(ws, TRUSTED);
    try {
      const rt = host.service("agent-runtime")!;
      const root = (await rt.start({ prompt: "level 0" })).sessionId;
      let parent = root;
      for (let depth = 1; depth <= 3; depth++) parent = (await rt.start({ prompt: `level ${depth}`, parentSessionId: parent })).sessionId;
      await expect(rt.start({ prompt: "level 4", parentSessionId: parent })).rejects.toThrow(/at most 3 deep/);
      const events = readEvents(ws.path(".keel", "sessions", parent, "events.jsonl"));
      const top = readEvents(ws.path(".keel", "sessions", root, "events.jsonl"));
      const tools = (e: typeof events) => e.find((x) => x.type === "model_call")!.tools as number;
      expect(tools(events)).toBe(tools(top) - 1);
    } finally {
      await host.close();
    }
  });

  it("keel run --worktree runs a session in a fresh managed worktree", async () => {
    const ws = makeWorkspace(
      {
        "b.txt": "base\n",
        "s.json": [{ toolCalls: [{ name: "write_file", arguments: { path: "b.txt", content: "changed\n" } }] }, { text: "changed b.txt" }],
      },
      { git: true },
    );
    spaces.push(ws);
    const r = await runKeel(["run", "--worktree", "--yes", "--model", "scripted:s.json", "change b"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/worktree run-\w+ kept at .*changed: b\.txt/);
    expect(ws.read("b.txt")).toBe("base\n");
  });
});
