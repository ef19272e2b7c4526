import { afterAll, describe, expect, it } from "vitest";
import { readEvents } from "../../../core/events.js";
import { useOpenAIServer } from "../../helpers/openai-server.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const server = useOpenAIServer();
const spaces: TempWorkspace[] = [];
afterAll(() => {
  for (const w of spaces) w.cleanup();
});

describe("config_set of a setting that widens asks, whatever allow rules say (as a write to keel.config.json does)", () => {
  it("an allow rule for config_set approves a model's output.maxChars, not its permissions.allow or model endpoint", async () => {
    const w = makeWorkspace({}, { git: true });
    spaces.push(w);
    w.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl }, permissions: { allow: ["config_set"] } });
    server.push(
      {
        text: "",
        toolCalls: [
          { id: "c1", name: "config_set", arguments: { key_path: "output.maxChars", value: 5000 } },
          { id: "c2", name: "config_set", arguments: { key_path: "permissions.allow", value: ["bash"], source: "project" } },
        ],
      },
      { text: "", toolCalls: [{ id: "c3", name: "config_set", arguments: { key_path: "model", value: { baseUrl: "http://127.0.0.1:9/v1" } } }] },
    );
    const first = await runKeel(["--json", "run", "--session", "cw1", "tune the config"], { cwd: w.root, env: w.env });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.json()).toMatchObject({ reason: "awaiting_approval", pendingApproval: { callId: "c2", tool: "config_set" } });
    expect(JSON.parse(w.read(".keel/config.local.json"))).toEqual({ output: { maxChars: 5000 } });
    // the widening write did not happen: a later `keel --trust run` (or `keel trust`) would have applied it
    expect(w.exists("keel.config.json")).toBe(false);
    const events = readEvents(w.path(".keel", "sessions", "cw1", "events.jsonl"));
    expect(events.find((e) => e.type === "tool_execute" && e.callId === "c1")).toMatchObject({ action: "allow" });
    const paused = events.find((e) => e.type === "approval_paused" && e.callId === "c2");
    expect(JSON.stringify(paused)).toContain("its permissions.allow");
    expect(JSON.stringify(paused)).toContain("an allow rule does not approve this write");

    // the model's next step: the endpoint it would send the conversation to
    const rejected = await runKeel(["--json", "sessions", "reject", "cw1"], { cwd: w.root, env: w.env });
    expect(rejected.exitCode, rejected.stderr).toBe(0);
    expect(rejected.json()).toMatchObject({ reason: "awaiting_approval", pendingApproval: { callId: "c3", tool: "config_set" } });
    expect(JSON.parse(w.read(".keel/config.local.json"))).toEqual({ output: { maxChars: 5000 } });
  });

  it("an allow rule for config_set approves lowering an agent limit, not raising the one in force (it applies once the workspace is trusted)", async () => {
    const w = makeWorkspace({}, { git: true });
    spaces.push(w);
    w.writeUserConfig({ permissions: { allow: ["config_set"] }, agent: { maxSteps: 3, budgets: { maxToolCalls: 5 } } });
    const set = (key_path: string, value: unknown) =>
      runKeel(["--json", "call", "config_set", "--input", JSON.stringify({ key_path, value, source: "project" })], { cwd: w.root, env: w.env });
    for (const [key, value] of [
      ["agent.maxSteps", 1000],
      ["agent.budgets", { maxToolCalls: 100000 }],
    ] as const) {
      const raised = await set(key, value);
      expect(raised.json(), key).toMatchObject({ ok: false, code: "approval_required" });
      expect(raised.json().content, key).toContain("agent.");
    }
    expect(w.exists("keel.config.json")).toBe(false);
    const lowered = await set("agent.maxSteps", 2);
    expect(lowered.json(), lowered.stderr).toMatchObject({ ok: true });
    expect(JSON.parse(w.read("keel.config.json"))).toEqual({ agent: { maxSteps: 2 } });
  });
});
