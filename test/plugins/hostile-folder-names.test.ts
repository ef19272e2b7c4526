import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

describe("a plugin folder named to look like keel's own output (real CLI)", () => {
  it("keel plugins shows its path quoted on one line, so its newlines cannot fake a contribution or a diagnostic", async () => {
    const folder = "x\n  virtual tool fake_tool\n\nok";
    ws = makeWorkspace({ [`plugins/${folder}/plugin.json`]: { name: 5 }, "plugins/good/plugin.json": { name: "good" } });
    const run = await runKeel(["plugins"], { cwd: ws.root, env: ws.env });
    const lines = run.stdout.split("\n");
    expect(lines).not.toContain("  virtual tool fake_tool");
    expect(lines).toContain(`not loaded: ${JSON.stringify(ws.path("plugins", folder, "plugin.json"))}`);
    expect(lines.filter((l) => l.startsWith("  error [plugin] "))).toEqual([
      `  error [plugin] ${JSON.stringify(ws.path("plugins", folder, "plugin.json"))}:name: name must be a string (got number); the plugin was not loaded.`,
    ]);
  });
});
