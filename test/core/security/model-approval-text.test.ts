import { afterEach, describe, expect, it } from "vitest";
import { readEvents } from "../../../core/events.js";
import { MODEL_APPROVAL_STOP } from "../../../core/settle-ask.js";
import { runKeel } from "../../helpers/run-cli.js";
import { sessionState } from "../../helpers/session-state.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

/** The events of session `id` of workspace `w`. */
const readEventsOf = (w: TempWorkspace, id: string) => readEvents(w.path(".keel", "sessions", id, "events.jsonl"));

/** A trusted workspace whose workflow `wf` has one shell step (which asks), and your allow rule for `workflow_run`. */
async function workspace(): Promise<TempWorkspace> {
  const w = makeWorkspace(
    {
      ".claw-workflows.json": { workflows: [{ name: "wf", steps: [{ id: "s", run: "echo ran > ran.txt" }] }] },
      "script.json": { turns: [{ toolCalls: [{ name: "workflow_run", arguments: { workflow_name: "wf" } }] }, { text: "done" }] },
    },
    { git: true },
  );
  w.writeUserConfig({ sandbox: "off", permissions: { allow: ["workflow_run"] } });
  expect((await runKeel(["trust"], { cwd: w.root, env: w.env })).exitCode).toBe(0);
  return w;
}

describe("what a model reads about a call that needs approval", () => {
  it("a workflow step the model's workflow_run could not get approved tells the model to stop, naming no way to approve it itself", async () => {
    ws = await workspace();
    const r = await runKeel(["run", "--model", "scripted:script.json", "--session", "s1", "go"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const state = await sessionState(ws.root, "s1");
    const result = state.messages.find((m) => m.role === "tool");
    const text = String(result?.content);
    expect(text).toContain("Approval required to run bash");
    expect(text).toContain(MODEL_APPROVAL_STOP);
    // Advice for the user (re-run with --yes, write an allow rule, run keel trust) is no instruction for a model.
    expect(text).not.toMatch(/--yes|allow rule|keel trust|keel\.config\.json|config\.json/);
    expect(ws.exists("ran.txt")).toBe(false);
  });

  it("the same workflow run from your own terminal still says how to approve it", async () => {
    ws = await workspace();
    const r = await runKeel(["workflow", "run", "wf"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode).toBe(1);
    expect(r.stdout + r.stderr).toContain("Re-run with --yes");
    expect(r.stdout + r.stderr).not.toContain(MODEL_APPROVAL_STOP);
  });

  // A workflow a model runs can start a sub-agent (a delegate_agent tool step, a prompt step); when that sub-agent waits for
  // approval, the step's result — the model's workflow_run result — says so. The parent does not pause on it.
  for (const [kind, step] of [
    ["delegate_agent tool step", { id: "d", tool: "delegate_agent", input: { prompt: "CHILD: run it" } }],
    ["prompt step", { id: "p", prompt: "CHILD: run it" }],
  ] as const)
    it(`a sub-agent of a ${kind} that waits for approval tells the model the decision is the user's, naming no command`, async () => {
      ws = makeWorkspace(
        {
          ".claw-workflows.json": { workflows: [{ name: "wf", steps: [step] }] },
          "script.json": {
            turns: [{ toolCalls: [{ name: "workflow_run", arguments: { workflow_name: "wf" } }] }, { text: "done" }],
            byPrompt: { CHILD: [{ toolCalls: [{ id: "b1", name: "bash", arguments: { command: "echo ran > ran.txt" } }] }, { text: "child done" }] },
          },
        },
        { git: true },
      );
      ws.writeUserConfig({ sandbox: "off", permissions: { allow: ["workflow_run", "delegate_agent"] } });
      expect((await runKeel(["trust"], { cwd: ws.root, env: ws.env })).exitCode).toBe(0);
      const r = await runKeel(["run", "--model", "scripted:script.json", "--session", "s1", "go"], { cwd: ws.root, env: ws.env });
      expect(r.exitCode, r.stderr).toBe(0);
      const text = String((await sessionState(ws.root, "s1")).messages.find((m) => m.role === "tool")?.content);
      expect(text).toMatch(/is waiting for approval to run bash\(\{"command":"echo ran > ran\.txt"\}\)/);
      expect(text).toContain(MODEL_APPROVAL_STOP);
      // old code: "Approve with `keel sessions approve CHILD` …" and "Deciding it (keel sessions approve|reject CHILD, or the same for s1) …"
      expect(text).not.toMatch(/sessions approve|sessions reject|--yes/);
      expect(ws.exists("ran.txt")).toBe(false);
    });

  it("a sub-agent's pause that pauses its parent (the agent loop's delegate_agent) still shows you the exact commands", async () => {
    ws = makeWorkspace(
      {
        "script.json": {
          turns: [{ toolCalls: [{ id: "d1", name: "delegate_agent", arguments: { prompt: "CHILD: run it" } }] }, { text: "done" }],
          byPrompt: { CHILD: [{ toolCalls: [{ id: "b1", name: "bash", arguments: { command: "echo ran > ran.txt" } }] }, { text: "child done" }] },
        },
      },
      { git: true },
    );
    ws.writeUserConfig({ sandbox: "off", permissions: { allow: ["delegate_agent"] } });
    const r = await runKeel(["run", "--model", "scripted:script.json", "--session", "s1", "go"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toContain("Approve with `keel sessions approve s1` or reject with `keel sessions reject s1`.");
    const paused = readEventsOf(ws, "s1").find((e) => e.type === "approval_paused");
    expect(String(paused && "message" in paused ? paused.message : "")).toMatch(
      /Approve with `keel sessions approve s-[^`]+`.*Deciding it \(keel sessions approve\|reject s-\S+, or the same for s1\)/,
    );
  });

  it("a denied read of keel's secrets names the setting that would show them to your command line only, never to the model", async () => {
    ws = makeWorkspace(
      { "script.json": { turns: [{ toolCalls: [{ name: "read_file", arguments: { path: "kh/session-key" } }] }, { text: "done" }] } },
      { git: true },
    );
    const env = { ...ws.env, KEEL_HOME: ws.path("kh") };
    ws.write("kh/session-key", "0".repeat(64) + "\n");
    const hint = '"credentials": "visible"';
    const r = await runKeel(["run", "--model", "scripted:script.json", "--session", "s1", "go"], { cwd: ws.root, env });
    expect(r.exitCode, r.stderr).toBe(0);
    const text = String((await sessionState(ws.root, "s1")).messages.find((m) => m.role === "tool")?.content);
    expect(text).toContain("Permission denied for read_file");
    expect(text).not.toContain(hint);
    const own = await runKeel(["--json", "call", "read_file", "--input", '{"path": "kh/session-key"}'], { cwd: ws.root, env });
    expect(own.json()).toMatchObject({ ok: false, code: "permission_denied" });
    expect(own.json().content).toContain(hint);
  });
});
