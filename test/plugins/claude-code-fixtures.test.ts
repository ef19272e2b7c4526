import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";
import { keelJson } from "./plugin-test-kit.js";
import { copyPluginTree, expectTreeLoads, informational, pluginFolders } from "./claude-plugin-tree.js";

/** keel's own Claude Code plugins in the public layout (the real-world set is checked by `npm run compat`). */
const TREE = fileURLToPath(new URL("./fixtures/claude-code", import.meta.url));

let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

describe("Claude Code plugins (the public plugin layout)", () => {
  it("loads every plugin of a plugins/ tree without an error diagnostic and lists commands, agents, skills and hook events", async () => {
    ws = makeWorkspace();
    copyPluginTree(TREE, ws);
    const expected = pluginFolders(TREE);
    expect(expected).toEqual(["guard-rails", "release-notes", "style-coach"]);
    const out = await expectTreeLoads(ws, expected);

    const guard = out.plugins.find((p: { name: string }) => p.name === "guard-rails");
    expect(guard).toMatchObject({ version: "0.3.1", layout: "claude", level: "project" });
    expect(informational(guard).sort()).toEqual(["agent:auditor", "command:/guard", "hook-event:PreToolUse", "hook-event:Stop", "skill:writing-guards"]);
    // everything guard-rails carries runs now (command, agent, skill, PreToolUse and Stop hooks): no "does not run yet" note
    expect(
      out.diagnostics.some(
        (d: { severity: string; file: string; message: string }) => d.severity === "info" && d.file === guard.path && /does not run them yet/.test(d.message),
      ),
    ).toBe(false);
    const notes = out.plugins.find((p: { name: string }) => p.name === "release-notes");
    expect(informational(notes).sort()).toEqual(["command:/notes", "command:/polish"]);
    const style = out.plugins.find((p: { name: string }) => p.name === "style-coach");
    expect(informational(style)).toEqual(["hook-event:SessionStart"]);

    const text = await runKeel(["plugins"], { cwd: ws.root, env: ws.env });
    expect(text.stdout).toMatch(/^guard-rails\s+0\.3\.1\s+project\s/m);
    expect(text.stdout).toContain(`command /guard (keel run "/guard …", or keel workflow run)`);
    expect(text.stdout).toContain("agent auditor (a delegate_agent type)");
    // hook events keel runs are not called "not run by keel yet"
    expect(text.stdout).toContain("hook PreToolUse (keel runs it: see keel hooks)");
    expect(text.stdout).toContain("hook SessionStart (keel runs it: see keel hooks)");
    expect(text.stdout).not.toContain("not run by keel yet");
  });

  it("guard-rails' PreToolUse hook blocks a recursive delete once the workspace is trusted (and not before: hooks are code)", async () => {
    ws = makeWorkspace();
    copyPluginTree(TREE, ws);
    const call = async (trust: boolean, command: string) =>
      (
        await runKeel([...(trust ? ["--trust"] : []), "--yes", "--json", "call", "bash", "--input", JSON.stringify({ command })], { cwd: ws.root, env: ws.env })
      ).json<{
        ok: boolean;
        code: string;
        content: string;
      }>();
    ws.write("build/x.txt", "x");
    expect(await call(true, "echo fine")).toMatchObject({ ok: true });
    const blocked = await call(true, "rm -rf build");
    expect(blocked).toMatchObject({ ok: false, code: "tool_blocked" });
    expect(blocked.content).toContain('guard-rails: "rm -rf build" deletes recursively');
    expect(ws.exists("build/x.txt")).toBe(true);
    // untrusted: the plugin's hooks do not run (the call is decided by keel's own rules alone)
    expect(await call(false, "rm -rf build")).toMatchObject({ ok: true });
    expect(ws.exists("build/x.txt")).toBe(false);
  });

  it("loads a workspace-root .claude-plugin/plugin.json with commands/, agents/ and hooks/ folders", async () => {
    ws = makeWorkspace({
      ".claude-plugin/plugin.json": { name: "rooted", version: "1.2.3", author: { name: "x" }, keywords: ["a"], hooks: "./hooks/extra.json" },
      "commands/ship.md": "",
      "agents/reviewer.md": "",
      "hooks/hooks.json": { hooks: { SessionStart: [{ hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/s.sh" }] }] } },
      "hooks/extra.json": { hooks: { PreCompact: [] } },
    });
    const out = (await keelJson(ws, ["plugins"])).json();
    expect(out.plugins).toHaveLength(1);
    expect(out.diagnostics.filter((d: { severity: string }) => d.severity !== "info")).toEqual([]);
    expect(informational(out.plugins[0]).sort()).toEqual(["agent:reviewer", "command:/ship", "hook-event:PreCompact", "hook-event:SessionStart"]);
  });

  it("keel plugins says which hook events keel runs and which it only lists", async () => {
    ws = makeWorkspace({
      "plugins/mixed/.claude-plugin/plugin.json": { name: "mixed" },
      "plugins/mixed/hooks/hooks.json": { hooks: { PostToolUse: [], PermissionRequest: [] } },
    });
    const text = await runKeel(["plugins"], { cwd: ws.root, env: ws.env });
    expect(text.stdout).toContain("hook PostToolUse (keel runs it: see keel hooks)");
    expect(text.stdout).toContain("hook PermissionRequest (not run by keel yet: keel hooks lists it)");
  });
});
