import { afterEach, describe, expect, it } from "vitest";
import type { PluginHandOff } from "../../core/services.js";
import { loadPlugins } from "../../manifests/plugin/load-plugins.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";
import { openTestHost } from "../helpers/test-host.js";
import { keelJson, writeUserPlugin } from "./plugin-test-kit.js";

let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

describe("lifecycle hooks", () => {
  it("each plugin taps the host hook of that name with its name, in discovery order", async () => {
    ws = makeWorkspace({
      ".codex-plugin/plugin.json": {
        name: "alpha",
        hooks: {
          beforePrompt: "alpha prompt",
          on_resume: ["alpha resume 1", "alpha resume 2"],
          afterTurn: "alpha turn",
          before_persist: "alpha persist",
          beforeDelegate: "alpha prefix",
          after_delegate: "alpha suffix",
        },
      },
      ".claw-plugin/plugin.json": { name: "beta", hooks: { before_prompt: "beta prompt", bogusHook: "x" } },
    });
    const host = await openTestHost(ws);
    try {
      expect(host.hooks.beforePrompt.taps.map((t) => t.name)).toEqual(["alpha", "beta"]);
      const prompt = await host.hooks.beforePrompt.promise({ host, system: "", guidance: [], resume: false });
      expect(prompt.guidance).toEqual([
        { source: "alpha", text: "alpha prompt" },
        { source: "beta", text: "beta prompt" },
      ]);
      const resume = await host.hooks.onResume.promise({ host, system: "", guidance: [], resume: true });
      expect(resume.guidance.map((g) => g.text)).toEqual(["alpha resume 1", "alpha resume 2"]);
      const turn = { host, reason: "answer", notes: [] as { source: string; text: string }[] };
      await host.hooks.afterTurn.promise(turn);
      expect(turn.notes).toEqual([{ source: "alpha", text: "alpha turn" }]);
      const persist = { host, markers: [] as { source: string; text: string }[] };
      await host.hooks.beforePersist.promise(persist);
      expect(persist.markers).toEqual([{ source: "alpha", text: "alpha persist" }]);
      const delegate = await host.hooks.beforeDelegate.promise({ host, prompt: "p", prefix: [] });
      expect(delegate.prefix).toEqual([{ source: "alpha", text: "alpha prefix" }]);
      const result = await host.hooks.afterDelegate.promise({ host, result: "r", suffix: [] });
      expect(result.suffix).toEqual([{ source: "alpha", text: "alpha suffix" }]);
      const unknown = host.diagnostics.items.find((d) => d.path === "hooks.bogusHook");
      expect(unknown).toMatchObject({ source: "plugin", severity: "warning", file: ws.path(".claw-plugin/plugin.json") });
    } finally {
      await host.close();
    }
  });
});

describe("hand-offs to other runtimes", () => {
  it("hands over inline and file MCP servers with plugin-root expansion, workflows raw, and user level", async () => {
    ws = makeWorkspace({
      "plugins/inline/.claude-plugin/plugin.json": {
        name: "inline",
        mcpServers: { srv: { command: "${CLAUDE_PLUGIN_ROOT}/bin/server", args: ["--root", "${PLUGIN_ROOT}", "${HOME}"] }, bad: 3 },
        workflows: [{ name: "wf", steps: [{ run: "echo {x}" }] }],
      },
      "plugins/file/plugin.json": { name: "file", mcpServers: "./mcp.json", workflows: "flows.json" },
      "plugins/file/mcp.json": { mcpServers: { fsrv: { url: "http://localhost/${PLUGIN_ROOT}" } } },
      "plugins/file/flows.json": { workflows: [{ name: "a" }, { name: "b" }] },
      "plugins/bare/plugin.json": { name: "bare", mcpServers: "servers.json" },
      "plugins/bare/servers.json": { one: { command: "x" } },
      "plugins/escape/plugin.json": { name: "escape", mcpServers: "../../secret.json" },
    });
    writeUserPlugin(ws, "home", { name: "home", mcpServers: { h: { command: "h" } } });
    const host = await openTestHost(ws);
    try {
      const handOffs = host.service("plugins")!.handOffs();
      const by = Object.fromEntries(handOffs.map((h: PluginHandOff) => [h.plugin, h]));
      const inlineRoot = ws.path("plugins/inline");
      expect(by.inline).toMatchObject({
        root: inlineRoot,
        userLevel: false,
        manifestPath: ws.path("plugins/inline/.claude-plugin/plugin.json"),
        mcpServers: { srv: { command: `${inlineRoot}/bin/server`, args: ["--root", inlineRoot, "${HOME}"] } },
        workflows: [{ name: "wf", steps: [{ run: "echo {x}" }] }],
      });
      expect(Object.keys(by.inline.mcpServers)).toEqual(["srv"]);
      expect(by.file).toMatchObject({
        mcpServers: { fsrv: { url: `http://localhost/${ws.path("plugins/file")}` } },
        mcpServersFile: ws.path("plugins/file/mcp.json"),
        workflowsFile: ws.path("plugins/file/flows.json"),
      });
      expect(by.file.workflows).toEqual([{ name: "a" }, { name: "b" }]);
      expect(by.bare.mcpServers).toEqual({ one: { command: "x" } });
      expect(by.escape.mcpServers).toEqual({});
      expect(by.home.userLevel).toBe(true);
      const diags = host.diagnostics.items.filter((d) => d.source === "plugin" && d.severity === "error");
      expect(diags.map((d) => [d.file, d.path])).toEqual([
        [ws.path("plugins/escape/plugin.json"), "mcpServers"],
        [ws.path("plugins/inline/.claude-plugin/plugin.json"), "mcpServers.bad"],
      ]);
      const records = host.service("plugin-records")!.records();
      expect(records.find((r) => r.name === "inline")!.needsTrust).toBe(true);
      expect(records.find((r) => r.name === "home")!.needsTrust).toBe(false);
    } finally {
      await host.close();
    }
  });

  it("marks project plugins with workflows as needing trust until the workspace is trusted", async () => {
    ws = makeWorkspace({ "plugins/flows/plugin.json": { name: "flows", workflows: [{ name: "noop", steps: [] }] } });
    const untrusted = (await keelJson(ws, ["plugins"])).json();
    expect(untrusted.plugins[0]).toMatchObject({ name: "flows", needsTrust: true, contributions: { workflows: 1 } });
    const trusted = (await keelJson(ws, ["--trust", "plugins"])).json();
    expect(trusted.plugins[0].needsTrust).toBe(false);
  });

  it("copies __proto__ keys as plain own data, never as a prototype", async () => {
    ws = makeWorkspace({
      "plugins/p/plugin.json": '{"name":"p","__proto__":{"polluted":true},"mcpServers":{"srv":{"__proto__":{"command":"evil"},"args":[]}}}',
    });
    const loaded = await loadPlugins({ cwd: ws.root, root: ws.root, keelHome: ws.keelHome });
    const srv = loaded.plugins[0]!.mcpServers.srv as Record<string, unknown>;
    expect(srv.command).toBeUndefined();
    expect(Object.getPrototypeOf(srv)).toBe(Object.prototype);
    expect(Object.keys(srv)).toEqual(["__proto__", "args"]);
    expect((loaded.plugins[0]!.manifest.extra as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
