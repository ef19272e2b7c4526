import { afterEach, describe, expect, it } from "vitest";
import { runKeelProcess } from "../../helpers/run-cli.js";
import { sessionState } from "../../helpers/session-state.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

describe("keel killed while a PreToolUse hook runs", () => {
  it("on resume the call is 'Not run' for its tool, and says that its hook may have run (old code: 'nothing was executed')", async () => {
    const w = makeWorkspace(
      {
        // The hook has its effect, then kills keel (its parent: SIGKILL), as a crash during the hook would.
        ".claude/settings.json": {
          hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo hook >> hook.txt; kill -9 $PPID; sleep 60" }] }] },
        },
        "script.json": { turns: [{ text: "run", toolCalls: [{ id: "h1", name: "bash", arguments: { command: "echo tool >> tool.txt" } }] }, { text: "done" }] },
      },
      { git: true },
    );
    ws = w;
    const killed = await runKeelProcess(["--trust", "--yes", "run", "--model", "scripted:script.json", "--session", "hk", "go"], { cwd: w.root, env: w.env });
    expect(killed.exitCode, killed.stderr).not.toBe(0);
    expect(w.read("hook.txt")).toBe("hook\n");
    expect(w.exists("tool.txt")).toBe(false);
    w.write(".claude/settings.json", { hooks: {} });
    const resumed = await runKeelProcess(["--trust", "--yes", "run", "--resume", "hk", "--model", "scripted:script.json"], { cwd: w.root, env: w.env });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const answer = (await sessionState(w.root, "hk")).messages.find((m) => m.role === "tool" && m.toolCallId === "h1")?.content;
    expect(answer).toMatch(/^Error \(precondition_failed\): Not run: keel stopped .* before this call started\./);
    expect(answer).toContain("the tool was not run (a PreToolUse hook may have run;");
    expect(answer).not.toContain("nothing was executed");
    expect(w.exists("tool.txt")).toBe(false);
  });
});
