import { afterEach, describe, expect, it } from "vitest";
import { KEEL_BIN, runKeel } from "../../helpers/run-cli.js";
import { sessionState } from "../../helpers/session-state.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

/** A node PreToolUse hook that stops the turn (continue: false) with a reason (Claude Code's settings format). */
const STOP_HOOK = `node -e 'process.stdin.resume();process.stdin.on("end",()=>console.log(JSON.stringify({continue:false,stopReason:"Deploy freeze"})))'`;

/**
 * A workspace whose scripted parent delegates "CHILD: go" (with `max_steps`); the child calls bash and would go on.
 * `hooks`: the user's hooks config.
 */
function workspace(hooks?: object): TempWorkspace {
  const w = makeWorkspace(
    {
      "script.json": {
        turns: [{ toolCalls: [{ id: "d1", name: "delegate_agent", arguments: { prompt: "CHILD: go", max_steps: 1 } }] }, { text: "parent done" }],
        byPrompt: {
          CHILD: [
            { toolCalls: [{ id: "b1", name: "bash", arguments: { command: "echo step1" } }] },
            { toolCalls: [{ id: "b2", name: "bash", arguments: { command: "echo step2" } }] },
            { text: "child done" },
          ],
        },
      },
    },
    { git: true },
  );
  w.writeUserConfig({ sandbox: "off", permissions: { allow: ["delegate_agent", "bash"] }, ...(hooks ? { hooks } : {}) });
  return w;
}

/** The parent's delegate_agent result (what its model reads) after `keel run`. */
async function delegateResult(w: TempWorkspace): Promise<string> {
  const r = await runKeel(["run", "--model", "scripted:script.json", "--session", "s1", "go"], { cwd: w.root, env: w.env });
  expect(r.exitCode, r.stderr).toBe(0);
  return String((await sessionState(w.root, "s1")).messages.find((m) => m.role === "tool")?.content);
}

describe("what a parent's model reads when its sub-agent stops on a limit the user set", () => {
  it("a sub-agent stopped by max_steps: no keel run --resume for the model to go around the limit with", async () => {
    ws = workspace();
    const text = await delegateResult(ws);
    expect(text).toMatch(/stopped \(max_steps\)/);
    expect(text).toContain("the user's decision, not yours");
    // old code: "Stopped after the maximum number of steps; continue with keel run --resume s-…"
    expect(text).not.toMatch(/--resume|keel run/);
  });

  it("a sub-agent stopped by a hook (continue: false): the hook's reason, no command to resume it", async () => {
    ws = workspace({ PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: STOP_HOOK }] }] });
    const text = await delegateResult(ws);
    expect(text).toMatch(/stopped \(hook_stop\)/);
    expect(text).toContain("Deploy freeze");
    expect(text).toContain("the user's decision, not yours");
    // old code: "… Continue with keel run --resume s-…"
    expect(text).not.toMatch(/--resume|keel run/);
  });

  it("you resuming that sub-agent in your own terminal still get the exact command", async () => {
    ws = workspace();
    await delegateResult(ws);
    const child = String((await sessionState(ws.root, "s1")).messages.find((m) => m.role === "tool")?.content).match(/session (s-\S+)/)?.[1];
    expect(child).toBeDefined();
    const r = await runKeel(["--json", "run", "--model", "scripted:script.json", "--max-steps", "1", "--resume", child!, "CHILD: more"], {
      cwd: ws.root,
      env: ws.env,
    });
    const out = r.json<{ reason: string; message: string }>();
    expect(out.reason).toBe("max_steps");
    expect(out.message).toContain(`continue with keel run --resume ${child}`);
  });

  it("a keel run a model started through bash (KEEL_CALL) that stops on max_steps offers it no resume either", async () => {
    ws = workspace();
    const nested = `"${process.execPath}" "${KEEL_BIN}" run --model scripted:script.json --max-steps 1 --session nest "CHILD: go"`;
    const outer = await runKeel(["--yes", "--json", "call", "bash", "--input", JSON.stringify({ command: nested })], { cwd: ws.root, env: ws.env });
    const content: string = outer.json().content;
    expect(content).toContain("Stopped after the maximum number of steps the user set for a turn.");
    expect(content).not.toMatch(/--resume/); // old code: "continue with keel run --resume nest."
  }, 60_000);

  it("your own session stopped by max_steps says how to continue it", async () => {
    ws = workspace();
    const r = await runKeel(["--json", "run", "--model", "scripted:script.json", "--max-steps", "1", "--session", "s2", "CHILD: go"], {
      cwd: ws.root,
      env: ws.env,
    });
    expect(r.json<{ message: string }>().message).toBe("Stopped after the maximum number of steps; continue with keel run --resume s2.");
  });
});
