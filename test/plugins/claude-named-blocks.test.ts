import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

describe("blocks and tool hooks naming a tool in Claude Code's spelling", () => {
  let ws: TempWorkspace | undefined;
  afterEach(() => {
    ws?.cleanup();
    ws = undefined;
  });

  it("block the keel tool it stands for (Bash → bash), and a name that is no tool gets a warning", async () => {
    ws = makeWorkspace();
    const dir = join(ws.keelHome, "plugins", "guard");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "plugin.json"),
      JSON.stringify({
        name: "guard",
        blocked_tools: ["Bash", "Shell"],
        tool_hooks: { Write: { blockMessage: "No writes here." }, bash: "after", Bash: "after" },
      }),
    );
    const bash = await runKeel(["--json", "--yes", "call", "bash", "--input", '{"command":"echo RAN"}'], { cwd: ws.root, env: ws.env });
    expect(bash.json()).toMatchObject({ ok: false, phase: "hook", code: "tool_blocked", content: "Plugin guard blocked tool bash." });
    const write = await runKeel(["--json", "--yes", "call", "write_file", "--input", '{"path":"a.txt","content":"x"}'], { cwd: ws.root, env: ws.env });
    expect(write.json()).toMatchObject({ ok: false, code: "tool_blocked", content: "No writes here." });
    expect(ws.exists("a.txt")).toBe(false);
    const plugins = (await runKeel(["--json", "plugins"], { cwd: ws.root, env: ws.env })).json();
    const warnings = plugins.diagnostics.filter((d: { severity: string }) => d.severity === "warning");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ path: "blocked_tools[1]", file: join(dir, "plugin.json") });
    expect(warnings[0].message).toContain('"Shell" names no tool keel has');
  });
});
