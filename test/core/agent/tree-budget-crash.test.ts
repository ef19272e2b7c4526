import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { KEEL_BIN, runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

const read = { toolCalls: [{ name: "read_file", arguments: { path: "a.txt" } }] };

describe("session-tree budgets when the process dies while a sub-agent runs", () => {
  it("the parent's resume counts what the child had used (read from the child's own log)", async () => {
    ws = makeWorkspace({
      "a.txt": "x\n",
      "script.json": {
        turns: [{ toolCalls: [{ id: "d1", name: "delegate_agent", arguments: { prompt: "KID: work" } }] }, { text: "parent done" }],
        // the third step's bash kills keel itself (its parent process) mid-call: a crash at a known point
        byPrompt: { "KID:": [read, read, { toolCalls: [{ name: "bash", arguments: { command: "kill -9 $PPID" } }] }, { text: "kid done" }] },
      },
    });
    const killed = await execa("node", [KEEL_BIN, "run", "--model", "scripted:script.json", "--session", "par", "--yes", "go"], {
      cwd: ws.root,
      env: ws.env,
      reject: false,
      stdin: "ignore",
    });
    expect(killed.signal, killed.stderr).toBe("SIGKILL");
    const resumed = await runKeel(["run", "--model", "scripted:script.json", "--resume", "par", "--json"], { cwd: ws.root, env: ws.env });
    const out = resumed.json();
    // the two reads the child finished count for the parent's budgets, though the parent never heard back from it
    expect(out.treeUsage.toolCalls - out.usage.toolCalls).toBe(2);
  });
});
