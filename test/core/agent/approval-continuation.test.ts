import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEvents } from "../../../core/events.js";
import { requestText, startOpenAIServer, type OpenAIServer } from "../../helpers/openai-server.js";
import { runKeel } from "../../helpers/run-cli.js";
import { sessionState } from "../../helpers/session-state.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let server: OpenAIServer;
const spaces: TempWorkspace[] = [];
beforeAll(async () => {
  server = await startOpenAIServer();
});
afterAll(async () => {
  await server.close();
  for (const w of spaces) w.cleanup();
});

function workspace(files: Record<string, string | object> = {}): TempWorkspace {
  const w = makeWorkspace(files);
  // delegate_agent is allowed, bash still asks: a sub-agent's bash call pauses it
  w.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl }, permissions: { allow: ["delegate_agent"] } });
  spaces.push(w);
  return w;
}

/** Starts a parent whose sub-agent pauses on a bash call; returns the two session ids. */
async function pausedPair(w: TempWorkspace): Promise<{ parent: string; child: string }> {
  server.push(
    { text: "", toolCalls: [{ id: "d1", name: "delegate_agent", arguments: { prompt: "CHILD: write the file" } }] },
    { text: "", toolCalls: [{ id: "b1", name: "bash", arguments: { command: "echo child > child.txt" } }] },
  );
  const r = await runKeel(["--json", "run", "--session", "p1", "delegate it"], { cwd: w.root, env: w.env });
  expect(r.exitCode, r.stderr).toBe(0);
  expect(r.json()).toMatchObject({ reason: "awaiting_approval", pendingApproval: { callId: "d1", tool: "delegate_agent" } });
  const parent = await sessionState(w.root, "p1");
  const child = parent.pending!.calls[0]!.child!;
  expect(child).toMatch(/^s-/);
  expect((await sessionState(w.root, child)).status).toBe("awaiting_approval");
  expect(readEvents(w.path(".keel", "sessions", "p1", "events.jsonl")).some((e) => e.type === "delegate_paused")).toBe(true);
  expect(w.exists("child.txt")).toBe(false);
  return { parent: "p1", child };
}

describe("approvals continue like a resume", () => {
  it("keel sessions approve fires beforePrompt/onResume; their texts follow the approved call's result", async () => {
    const w = workspace({ ".claw-plugin/plugin.json": { name: "hooky", hooks: { beforePrompt: "BEFORE-TEXT", onResume: "RESUME-TEXT" } } });
    server.push({ text: "", toolCalls: [{ id: "w1", name: "bash", arguments: { command: "echo ok > ok.txt" } }] });
    const paused = await runKeel(["run", "--session", "h1", "write"], { cwd: w.root, env: w.env });
    expect(paused.stderr).toContain("keel sessions approve h1");
    server.push({ text: "written" });
    const before = server.requests.length;
    const ok = await runKeel(["sessions", "approve", "h1"], { cwd: w.root, env: w.env });
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(w.read("ok.txt").trim()).toBe("ok");
    const sent = server.requests[before]!.messages;
    const tool = sent.findIndex((m) => m.role === "tool" && m.tool_call_id === "w1");
    // the tool result comes right after the assistant message that asked for it; the hook texts after it
    expect(sent[tool - 1]).toMatchObject({ role: "assistant" });
    expect(JSON.stringify(sent.slice(tool + 1))).toContain("RESUME-TEXT");
    expect(requestText(server.requests[before]!)).toContain("BEFORE-TEXT");
    const hooks = readEvents(w.path(".keel", "sessions", "h1", "events.jsonl")).filter((e) => e.type === "hook" && e.hook === "onResume");
    expect(hooks).toHaveLength(1);
  });

  it("keel sessions approve approves that one call: a workflow it runs does not get --yes for its steps (as a terminal's y)", async () => {
    const w = workspace({ ".claw-workflows.json": { workflows: [{ name: "release", steps: [{ id: "tag", run: "echo tagged > tagged.txt" }] }] } });
    server.push({ text: "", toolCalls: [{ id: "r1", name: "workflow_run", arguments: { workflow_name: "release" } }] });
    const paused = await runKeel(["--json", "--trust", "run", "--session", "wf1", "release it"], { cwd: w.root, env: w.env });
    expect(paused.json()).toMatchObject({ reason: "awaiting_approval", pendingApproval: { callId: "r1", tool: "workflow_run" } });
    server.push({ text: "done" });
    const ok = await runKeel(["--trust", "sessions", "approve", "wf1"], { cwd: w.root, env: w.env });
    expect(ok.exitCode, ok.stderr).toBe(0);
    // The workflow ran; its bash step asked on its own and, with nobody to answer here, did not run.
    expect(w.exists("tagged.txt")).toBe(false);
    const events = readEvents(w.path(".keel", "sessions", "wf1", "events.jsonl"));
    expect(events.find((e) => e.type === "tool_execute" && e.callId === "r1")).toMatchObject({ approvedBy: "user" });
    const result = events.find((e) => e.type === "tool_observation" && e.callId === "r1");
    expect(result).toMatchObject({ ok: false });
  });

  it("keel sessions approve is the user's answer: it approves a strict ask (--yes cannot) and records approvedBy user, not --yes", async () => {
    // an ask rule for bash and a command name keel cannot check statically: only an explicit answer approves it
    const w = workspace({ "keel.config.json": { permissions: { ask: ["bash(git push*)"] } } });
    server.push({ text: "", toolCalls: [{ id: "s1", name: "bash", arguments: { command: "$(echo echo) strict-ran > strict.txt" } }] });
    const paused = await runKeel(["--json", "run", "--session", "st1", "run it"], { cwd: w.root, env: w.env });
    expect(paused.json()).toMatchObject({ reason: "awaiting_approval", pendingApproval: { callId: "s1" } });
    server.push({ text: "done" });
    const ok = await runKeel(["sessions", "approve", "st1"], { cwd: w.root, env: w.env });
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(ok.stderr).toContain("● bash  $(echo echo) strict-ran > strict.txt"); // the call, with its arguments, as keel run shows it
    expect(ok.stderr).toContain("approved (user)");
    expect(ok.stderr).toContain("· answer ·");
    expect(w.read("strict.txt").trim()).toBe("strict-ran");
    const execute = readEvents(w.path(".keel", "sessions", "st1", "events.jsonl")).find((e) => e.type === "tool_execute" && e.callId === "s1");
    expect(execute).toMatchObject({ action: "ask", approvedBy: "user" });
  });

  it("a sub-agent that pauses pauses its parent; approving the sub-agent continues both to the end", async () => {
    const w = workspace();
    const { parent, child } = await pausedPair(w);
    server.push({ text: "child wrote it" }, { text: "PARENT-DONE" });
    const ok = await runKeel(["--json", "sessions", "approve", child], { cwd: w.root, env: w.env });
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(ok.json()).toMatchObject({ sessionId: parent, reason: "answer", text: "PARENT-DONE" });
    expect(w.read("child.txt").trim()).toBe("child");
    expect((await sessionState(w.root, child)).status).toBe("idle");
    const p = await sessionState(w.root, parent);
    expect(p.status).toBe("idle");
    expect(p.messages.find((m) => m.role === "tool" && m.toolCallId === "d1")!.content).toContain("child wrote it");
    // the child ran once: its bash call executed exactly once
    const childEvents = readEvents(w.path(".keel", "sessions", child, "events.jsonl"));
    expect(childEvents.filter((e) => e.type === "tool_execute" && e.callId === "b1")).toHaveLength(1);
  });

  it("a parent paused on its sub-agent names the sub-agent's call that approving it runs (keel run, sessions show, sessions adopt)", async () => {
    const w = workspace();
    server.push(
      { text: "", toolCalls: [{ id: "d1", name: "delegate_agent", arguments: { prompt: "CHILD: tidy up" } }] },
      { text: "", toolCalls: [{ id: "b1", name: "bash", arguments: { command: "echo hidden-step > hidden.txt" } }] },
    );
    const paused = await runKeel(["run", "--session", "p2", "delegate it"], { cwd: w.root, env: w.env });
    expect(paused.exitCode, paused.stderr).toBe(0);
    const child = (await sessionState(w.root, "p2")).pending!.calls[0]!.child!;
    const named = `bash({"command":"echo hidden-step > hidden.txt"}) in sub-agent session ${child}`;
    // the last line keel run prints names the call the approval runs, not only the delegate_agent call
    expect(paused.stderr).toContain(`Session p2 is waiting for approval to run ${named}`);
    const json = await runKeel(["--json", "sessions", "show", "p2"], { cwd: w.root, env: w.env });
    expect(json.json()).toMatchObject({
      waiting: {
        callId: "d1",
        tool: "delegate_agent",
        subAgent: { sessionId: child, callId: "b1", tool: "bash", arguments: '{"command":"echo hidden-step > hidden.txt"}' },
      },
    });
    const show = await runKeel(["sessions", "show", "p2"], { cwd: w.root, env: w.env });
    expect(show.stdout).toContain(`waiting:  approval of bash {"command":"echo hidden-step > hidden.txt"} in sub-agent session ${child}`);
    const adopt = await runKeel(["sessions", "adopt", "p2"], { cwd: w.root, env: w.env });
    expect(adopt.stdout).toContain(`It waits for approval of bash {"command":"echo hidden-step > hidden.txt"} in sub-agent session ${child}`);
    expect(w.exists("hidden.txt")).toBe(false);
  });

  it("approving the parent decides its sub-agent's call, then both run to the end; rejecting reaches the sub-agent", async () => {
    const w = workspace();
    const { parent, child } = await pausedPair(w);
    server.push({ text: "child was refused" }, { text: "PARENT-AFTER-REJECT" });
    const r = await runKeel(["--json", "sessions", "reject", parent], { cwd: w.root, env: w.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ sessionId: parent, reason: "answer", text: "PARENT-AFTER-REJECT" });
    expect(w.exists("child.txt")).toBe(false);
    const c = await sessionState(w.root, child);
    expect(c.messages.find((m) => m.role === "tool" && m.toolCallId === "b1")!.content).toMatch(/declined/);
    const p = await sessionState(w.root, parent);
    expect(p.messages.find((m) => m.role === "tool" && m.toolCallId === "d1")!.content).toContain("child was refused");
  });
});
