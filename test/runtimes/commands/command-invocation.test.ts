import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readEvents } from "../../../core/events.js";
import { useOpenAIServer } from "../../helpers/openai-server.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const server = useOpenAIServer();
let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

/** Your own command (its `!` lines may run), which its author keeps from the model. */
const SHIP = "---\ndescription: Ships the release\ndisable-model-invocation: true\nallowed-tools: Bash(echo *)\n---\nShip it. Marker: !`echo SHIPPED-MARK`\n";

describe("prompt commands with disable-model-invocation: true (Claude Code: only the user runs them)", () => {
  it("the model's workflow_run is refused before anything renders or runs; you still run it with keel run /name", async () => {
    ws = makeWorkspace({});
    mkdirSync(join(ws.keelHome, "commands"), { recursive: true });
    writeFileSync(join(ws.keelHome, "commands", "ship.md"), SHIP);
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    const before = server.requests.length;
    server.push(
      { toolCalls: [{ id: "w1", name: "workflow_run", arguments: { workflow_name: "ship" } }] },
      { text: "step text" },
      { text: "could not ship" },
      { text: "spare" },
    );
    const r = await runKeel(["--json", "--yes", "run", "--session", "s1", "ship the release"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const observation = readEvents(ws.path(".keel", "sessions", "s1", "events.jsonl")).find((e) => e.type === "tool_observation" && e.callId === "w1");
    expect(observation).toMatchObject({ ok: false, code: "permission_denied" });
    const result = server.requests[before + 1]!.messages.find((m) => m.role === "tool" && m.tool_call_id === "w1")!.content;
    expect(result).toContain("has disable-model-invocation: true: only the user may run it");
    expect(JSON.stringify(server.requests.slice(before))).not.toContain("SHIPPED-MARK");

    // the user runs it as before: its ! line runs and the rendered text reaches the model
    server.push({ text: "shipped" });
    const mine = await runKeel(["run", "/ship"], { cwd: ws.root, env: ws.env });
    expect(mine.exitCode, mine.stderr).toBe(0);
    expect(JSON.stringify(server.requests.at(-1))).toContain("SHIPPED-MARK");
  });
});
