import { mkdirSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { discoverPluginFiles } from "../../../manifests/plugin/discover-plugin-files.js";
import { loadPlugins } from "../../../manifests/plugin/load-plugins.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { keelJson, writeJson, writeUserPlugin } from "../../plugins/plugin-test-kit.js";

let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

describe("plugin discovery", () => {
  it("loads in the documented order, reports broken and nameless files, and never looks above the workspace root", async () => {
    ws = makeWorkspace({
      ".codex-plugin/plugin.json": { name: "codex" },
      ".claw-plugin/plugin.json": { name: "claw" },
      "plugins/b/plugin.json": { name: "bee" },
      "plugins/a/plugin.json": { name: "ay" },
      "plugins/a2/.claude-plugin/plugin.json": { name: "claude-nested" },
      "plugins/broken/plugin.json": "{ not json",
      "plugins/nameless/plugin.json": { version: "1.0.0", tool_aliases: [] },
      "sub/dir/.claude-plugin/plugin.json": { name: "near" },
    });
    writeJson(join(dirname(ws.root), "plugins", "x", "plugin.json"), { name: "above-root" });
    writeJson(join(dirname(ws.root), ".claw-plugin", "plugin.json"), { name: "above-root-claw" });
    writeUserPlugin(ws, "u", { name: "user-one" });

    const run = await keelJson(ws, ["plugins"], ws.path("sub", "dir"));
    // Two plugins did not load: `keel plugins` reports them and exits 1.
    expect(run.exitCode).toBe(1);
    const out = run.json();
    expect(out.plugins.map((p: { name: string }) => p.name)).toEqual(["near", "codex", "claw", "ay", "claude-nested", "bee", "user-one"]);
    expect(out.plugins.map((p: { level: string }) => p.level)).toEqual(["project", "project", "project", "project", "project", "project", "user"]);
    const failedFiles = out.failed.map((f: { file: string }) => f.file);
    expect(failedFiles).toEqual([ws.path("plugins/broken/plugin.json"), ws.path("plugins/nameless/plugin.json")]);
    const broken = out.diagnostics.find((d: { file: string }) => d.file === ws.path("plugins/broken/plugin.json"));
    expect(broken).toMatchObject({ severity: "error", source: "plugin" });
    expect(broken.message).toMatch(/not valid JSON/);
    const nameless = out.diagnostics.find((d: { file: string }) => d.file === ws.path("plugins/nameless/plugin.json"));
    expect(nameless).toMatchObject({ severity: "error", path: "name" });
    expect(JSON.stringify(out)).not.toContain("above-root");

    const tools = (await keelJson(ws, ["tools"])).json();
    const files = tools.diagnostics.map((d: { file?: string }) => d.file);
    expect(files).toContain(ws.path("plugins/broken/plugin.json"));
    expect(files).toContain(ws.path("plugins/nameless/plugin.json"));
  });

  it("loads the same real path once and skips a second plugin with a taken name", async () => {
    ws = makeWorkspace({ "plugins/real/plugin.json": { name: "real" }, "plugins/other/plugin.json": { name: "real" } });
    symlinkSync(ws.path("plugins/real"), ws.path("plugins/zlink"));
    const files = discoverPluginFiles({ cwd: ws.root, root: ws.root, keelHome: ws.keelHome });
    expect(files.map((f) => f.path)).toEqual([ws.path("plugins/other/plugin.json"), ws.path("plugins/real/plugin.json")]);
    const loaded = await loadPlugins({ cwd: ws.root, root: ws.root, keelHome: ws.keelHome });
    expect(loaded.plugins.map((p) => p.manifestPath)).toEqual([ws.path("plugins/other/plugin.json")]);
    expect(loaded.failed[0]!.diagnostics[0]!.message).toMatch(/already loaded/);
  });

  it("accepts camelCase and snake_case, trims strings, treats blanks as absent and keeps unknown fields", async () => {
    ws = makeWorkspace({
      ".claw-plugin/plugin.json": {
        name: "  spaced  ",
        version: " 2.0 ",
        description: "   ",
        futureField: { anything: true },
        toolAliases: [{ name: " cat ", baseTool: " read_file ", description: "  " }],
        virtualTools: [
          { name: "v", responseTemplate: " ok " },
          { name: "w", response: "r" },
        ],
        blockedTools: [" bash "],
        toolHooks: { read_file: { before_tool: " b ", afterResult: "a", block_message: "  " } },
        hooks: { before_prompt: [" one ", "", "two"], afterTurn: "done" },
      },
    });
    const loaded = await loadPlugins({ cwd: ws.root, root: ws.root, keelHome: ws.keelHome });
    expect(loaded.diagnostics).toEqual([]);
    const m = loaded.plugins[0]!.manifest;
    expect(m).toMatchObject({ name: "spaced", version: "2.0", extra: { futureField: { anything: true } } });
    expect(m.description).toBeUndefined();
    expect(m.aliases).toEqual([{ name: "cat", baseTool: "read_file", description: undefined, path: "toolAliases[0]" }]);
    expect(m.virtualTools.map((v) => [v.name, v.responseTemplate])).toEqual([
      ["v", "ok"],
      ["w", "r"],
    ]);
    expect(m.blockedTools.map((b) => b.name)).toEqual(["bash"]);
    expect(m.toolHooks).toEqual([{ tool: "read_file", beforeTool: "b", afterResult: "a", blockMessage: undefined, path: "toolHooks.read_file" }]);
    expect(m.hooks.map((h) => [h.hook, h.texts])).toEqual([
      ["beforePrompt", ["one", "two"]],
      ["afterTurn", ["done"]],
    ]);
  });

  it("reports wrong field types with file, JSON path and reason, and still loads the rest", async () => {
    ws = makeWorkspace({
      "plugins/p/plugin.json": {
        name: "p",
        version: 3,
        tool_aliases: [{ name: "ok_alias", base_tool: "read_file" }, { name: "no_base" }, { name: 5, base_tool: "read_file" }, "str"],
        virtual_tools: { not: "a list" },
        blocked_tools: ["fine", 7],
        tool_hooks: { read_file: 3, "*": "all" },
        hooks: { beforePrompt: 4, onResume: "back", mystery: "x" },
      },
    });
    const file = ws.path("plugins/p/plugin.json");
    const loaded = await loadPlugins({ cwd: ws.root, root: ws.root, keelHome: ws.keelHome });
    const byPath = Object.fromEntries(loaded.diagnostics.map((d) => [d.path, d]));
    for (const path of [
      "version",
      "tool_aliases[1].base_tool",
      "tool_aliases[2].name",
      "tool_aliases[3]",
      "virtual_tools",
      "blocked_tools[1]",
      "tool_hooks.read_file",
      "hooks.beforePrompt",
      "hooks.mystery",
    ])
      expect(byPath[path], path).toMatchObject({ file, source: "plugin" });
    expect(byPath["version"]!.message).toMatch(/must be a string \(got number\)/);
    expect(byPath["tool_aliases[1].base_tool"]!.message).toMatch(/is required/);
    expect(byPath["hooks.mystery"]!.severity).toBe("warning");
    const m = loaded.plugins[0]!.manifest;
    expect(m.aliases.map((a) => a.name)).toEqual(["ok_alias"]);
    expect(m.blockedTools.map((b) => b.name)).toEqual(["fine"]);
    expect(m.toolHooks.map((h) => h.tool)).toEqual(["*"]);
    expect(m.hooks.map((h) => h.hook)).toEqual(["onResume"]);
  });

  it("reports a manifest that is not an object", async () => {
    ws = makeWorkspace({ "plugins/arr/plugin.json": "[1,2]", "plugins/str/plugin.json": '"x"' });
    const loaded = await loadPlugins({ cwd: ws.root, root: ws.root, keelHome: ws.keelHome });
    expect(loaded.plugins).toEqual([]);
    expect(loaded.failed.map((f) => f.diagnostics[0]!.message)).toEqual([
      expect.stringMatching(/must be a JSON object \(got array\)/),
      expect.stringMatching(/must be a JSON object \(got string\)/),
    ]);
  });

  it("stops at the working directory when no workspace marker bounds it", () => {
    ws = makeWorkspace({}, { marker: false });
    mkdirSync(ws.path("inner"), { recursive: true });
    writeJson(ws.path(".claw-plugin/plugin.json"), { name: "outer" });
    const files = discoverPluginFiles({ cwd: ws.path("inner"), root: ws.path("inner"), keelHome: ws.keelHome });
    expect(files).toEqual([]);
  });
});
