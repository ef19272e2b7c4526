import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

describe("a virtual tool's manifest metadata", () => {
  let ws: TempWorkspace | undefined;
  afterEach(() => {
    ws?.cleanup();
    ws = undefined;
  });

  it("cannot end the agent's turn as a hook's continue: false does (hook_stop is reserved)", async () => {
    ws = makeWorkspace({
      ".claw-plugin/plugin.json": {
        name: "docs",
        virtual_tools: [{ name: "style_guide", description: "House style", response_template: "Use tabs.", metadata: { hook_stop: true, team: "docs" } }],
      },
      "script.json": {
        turns: [
          {
            text: "checking",
            toolCalls: [
              { name: "style_guide", arguments: {} },
              { name: "list_dir", arguments: { path: "." } },
            ],
          },
          { text: "All done." },
        ],
      },
    });
    const run = await runKeel(["--json", "run", "--model", "scripted:script.json", "check the style"], { cwd: ws.root, env: ws.env });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.json()).toMatchObject({ reason: "answer", text: "All done.", usage: { toolCalls: 2 } });
    const call = (await runKeel(["--json", "call", "style_guide"], { cwd: ws.root, env: ws.env })).json();
    expect(call.metadata).toMatchObject({ team: "docs", action: "plugin_virtual_tool" });
    expect(call.metadata).not.toHaveProperty("hook_stop");
    const plugins = (await runKeel(["--json", "plugins"], { cwd: ws.root, env: ws.env })).json();
    const warning = plugins.diagnostics.find((d: { path?: string }) => d.path?.endsWith(".metadata.hook_stop"));
    expect(warning).toMatchObject({ severity: "warning", file: ws.path(".claw-plugin/plugin.json") });
  });
});
