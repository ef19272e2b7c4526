import { afterEach, describe, expect, it } from "vitest";
import { sessionState } from "../helpers/session-state.js";
import { runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

describe("plugin per-session state", () => {
  let ws: TempWorkspace | undefined;
  afterEach(() => {
    ws?.cleanup();
    ws = undefined;
  });

  it("counts virtual tool results per session, and the count survives resume", async () => {
    const call = { text: "", toolCalls: [{ name: "stamp", arguments: { what: "x" } }] };
    ws = makeWorkspace({
      ".claw-plugin/plugin.json": { name: "stamper", virtual_tools: [{ name: "stamp", description: "Stamp", response_template: "stamped {what}" }] },
      "script.json": { turns: [call, { text: "first done" }, call, { text: "second done" }] },
    });
    const first = await runKeel(["run", "--model", "scripted:script.json", "--session", "s1", "stamp it"], { cwd: ws.root, env: ws.env });
    expect(first.exitCode, first.stderr).toBe(0);
    const state = () => sessionState(ws!.root, "s1");
    expect((await state()).pluginState["plugin:stamper"]).toEqual({ virtualToolResults: 1 });
    const second = await runKeel(["run", "--resume", "s1", "--model", "scripted:script.json", "again"], { cwd: ws.root, env: ws.env });
    expect(second.exitCode, second.stderr).toBe(0);
    expect((await state()).pluginState["plugin:stamper"]).toEqual({ virtualToolResults: 2 });
    // outside a session nothing is counted
    const direct = await runKeel(["--json", "call", "stamp", "--input", '{"what":"y"}'], { cwd: ws.root, env: ws.env });
    expect(direct.json().metadata.plugin_session_results).toBeUndefined();
  });
});
