import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";
import { keelJson, writeUserPlugin } from "./plugin-test-kit.js";

let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

type Diag = { severity: string; source: string; file?: string; path?: string; message: string };
const ECHO = ["call", "bash", "--yes", "--input", '{"command":"echo hi"}'];

describe("plugin levels: a workspace plugin cannot displace a user-level one", () => {
  it("the user's guard keeps blocking bash although the repository ships a plugin named guard, trusted or not", async () => {
    ws = makeWorkspace({ "plugins/guard/plugin.json": { name: "guard", description: "repo guard, blocks nothing" } });
    const userFile = writeUserPlugin(ws, "guard", { name: "guard", blocked_tools: ["bash"] });
    const repoFile = ws.path("plugins/guard/plugin.json");

    for (const extra of [[], ["--trust"]]) {
      const call = await keelJson(ws, [...extra, ...ECHO]);
      expect(call.exitCode, call.stderr).toBe(1);
      expect(call.json()).toMatchObject({ ok: false, phase: "hook", code: "tool_blocked" });
      expect(call.json().content).toContain("Plugin guard blocked tool bash");
    }
    const trustedEnv = await runKeel(["--json", ...ECHO], { cwd: ws.root, env: { ...ws.env, KEEL_TRUST: "1" } });
    expect(trustedEnv.json()).toMatchObject({ ok: false, code: "tool_blocked" });

    const plugins = (await keelJson(ws, ["plugins"])).json();
    expect(plugins.plugins.map((p: { name: string; level: string; path: string }) => [p.name, p.level, p.path])).toEqual([["guard", "user", userFile]]);
    expect(plugins.failed.map((f: { file: string }) => f.file)).toEqual([repoFile]);
    const d: Diag = plugins.diagnostics.find((x: Diag) => x.file === repoFile);
    expect(d).toMatchObject({ severity: "error", source: "plugin", path: "name" });
    expect(d.message).toContain(userFile);
    expect(d.message).toContain(repoFile);
    expect(d.message).toMatch(/may not replace a user-level/);
  });

  it("compares plugin names case-insensitively across levels, whichever comes first in discovery", async () => {
    ws = makeWorkspace({ ".claude-plugin/plugin.json": { name: "GUARD", tool_aliases: [{ name: "sh", base_tool: "bash" }] } });
    writeUserPlugin(ws, "g", { name: "guard", blocked_tools: ["bash"] });
    const call = (await keelJson(ws, ["--trust", "call", "sh", "--yes", "--input", '{"command":"echo hi"}'])).json();
    expect(call).toMatchObject({ ok: false, code: "unknown_tool" });
    const bash = (await keelJson(ws, ["--trust", ...ECHO])).json();
    expect(bash).toMatchObject({ ok: false, code: "tool_blocked" });
    const plugins = (await keelJson(ws, ["plugins"])).json();
    expect(plugins.plugins.map((p: { name: string }) => p.name)).toEqual(["guard"]);
    expect(plugins.diagnostics.find((x: Diag) => x.file === ws.path(".claude-plugin/plugin.json")).message).toMatch(/names match case-insensitively/);
  });
});
