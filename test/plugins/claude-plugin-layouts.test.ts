import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";
import { informational } from "./claude-plugin-tree.js";
import { keelJson } from "./plugin-test-kit.js";

/**
 * Claude Code plugin layouts keel used to miss: a plugin-root `.mcp.json`, `mcpServers` as a list of
 * paths, `commands` paths, a plugin folder without a manifest, `_comment` keys, and claw-code's
 * `runtimeTools`. The tree is linked in as the workspace's plugins/ (its server imports the SDK from
 * this repository's node_modules).
 */
const PLUGINS = fileURLToPath(new URL("../fixtures/claude-plugin-layouts/plugins", import.meta.url));

let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

function withPlugins(files: Record<string, string | object> = {}): TempWorkspace {
  const w = makeWorkspace(files);
  symlinkSync(PLUGINS, w.path("plugins"), "dir");
  return w;
}

describe("Claude Code plugin layouts", () => {
  it("loads mcpServers paths and the plugin-root .mcp.json, commands paths, runtimeTools, and a manifest-less folder, without an error", async () => {
    ws = withPlugins();
    const out = (await keelJson(ws, ["plugins"])).json();
    expect(out.failed).toEqual([]);
    expect(out.diagnostics.filter((d: { severity: string }) => d.severity === "error" || d.severity === "warning")).toEqual([]);
    expect(out.plugins.map((p: { name: string }) => p.name)).toEqual(["loose-kit", "shipit"]);

    const shipit = out.plugins.find((p: { name: string }) => p.name === "shipit");
    expect(shipit.contributions.mcpServers.sort()).toEqual(["shipit-extra", "shipit-stamp"]);
    expect(shipit.contributions.virtualTools).toEqual(["ship_status"]);
    // commands/ plus the files and folders `commands` names; custom/unlisted.md is not named
    expect(informational(shipit).sort()).toEqual(["command:/deploy", "command:/ship", "command:/status"]);

    const loose = out.plugins.find((p: { name: string }) => p.name === "loose-kit");
    expect(loose).toMatchObject({ layout: "claude", folderOnly: true, path: ws.path("plugins", "loose-kit") });
    expect(informational(loose).sort()).toEqual(["command:/hello", "skill:tidy"]);
  });

  it("custom command paths and a manifest-less plugin's commands reach the workflow list", async () => {
    ws = withPlugins();
    const list = await runKeel(["workflow", "list"], { cwd: ws.root, env: ws.env });
    for (const [name, source, description] of [
      ["ship", "plugin:shipit", "Ship the current branch"],
      ["deploy", "plugin:shipit", "Deploy a service"],
      ["status", "plugin:shipit", "Release status"],
      ["hello", "plugin:loose-kit", "Say hello"],
    ])
      expect(list.stdout).toMatch(new RegExp(`^${name}\\s+1\\s+${source}\\s+${description}`, "m"));
    expect(list.stdout).not.toMatch(/^unlisted\b/m);
  });

  it("servers from the plugin-root .mcp.json and from an mcpServers path start when trusted; runtimeTools answer", async () => {
    ws = withPlugins();
    const call = async (tool: string, input: object) =>
      (await runKeel(["--trust", "--yes", "--json", "call", tool, "--input", JSON.stringify(input)], { cwd: ws.root, env: ws.env })).json();
    expect(await call("mcp__shipit-stamp__whoami", {})).toMatchObject({ ok: true, content: "shipit root" });
    expect(await call("mcp__shipit-extra__whoami", {})).toMatchObject({ ok: true, content: "shipit extra" });
    expect(await call("ship_status", { train: "t7" })).toMatchObject({ ok: true, content: "Ship status for t7: green" });
    // untrusted: the workspace plugin's servers do not start
    const tools = (await keelJson(ws, ["tools"])).json();
    expect(tools.tools.map((t: { name: string }) => t.name)).not.toContain("mcp__shipit-stamp__whoami");
  });

  it("a workspace-root .claude-plugin does not load the workspace's .mcp.json a second time; _ keys are ignored everywhere", async () => {
    ws = makeWorkspace({
      ".claude-plugin/plugin.json": { _comment: "root plugin", name: "rooted", hooks: { _note: "x" }, tool_hooks: { _note: "y" } },
      ".mcp.json": { mcpServers: { _comment: "a note", docs: { command: "node", args: ["-e", "0"], disabled: true } } },
    });
    const out = (await keelJson(ws, ["plugins"])).json();
    expect(out.diagnostics).toEqual([]);
    expect(out.plugins[0].contributions.mcpServers).toEqual([]);
    const tools = (await keelJson(ws, ["tools"])).json();
    expect(tools.diagnostics.filter((d: { source: string }) => d.source === "mcp" || d.source === "plugin")).toEqual([]);
  });

  it("a missing commands path, an mcpServers path leaving the plugin and a non-path item are diagnostics naming the field; the rest loads", async () => {
    ws = makeWorkspace({
      "plugins/p/.claude-plugin/plugin.json": { name: "p", commands: ["./a.md", "./missing"], mcpServers: ["../outside.json", 3, "./s.json"] },
      "plugins/p/a.md": "Do A.",
      "plugins/p/s.json": { mcpServers: { s: { command: "node", args: ["-e", "0"] } } },
    });
    const out = (await keelJson(ws, ["plugins"])).json();
    const file = ws.path("plugins", "p", ".claude-plugin", "plugin.json");
    expect(out.diagnostics.map((d: { severity: string; file: string; path: string }) => [d.severity, d.file, d.path])).toEqual([
      ["error", file, "mcpServers[0]"],
      ["error", file, "mcpServers[1]"],
      ["warning", file, "commands[1]"],
    ]);
    expect(out.plugins[0].contributions.mcpServers).toEqual(["s"]);
    expect(informational(out.plugins[0])).toEqual(["command:/a"]);
  });

  it("agents, skills, outputStyles and lspServers paths keel does not follow are info diagnostics naming the field; the plugin's own agents/ still loads", async () => {
    ws = makeWorkspace({
      "plugins/p/.claude-plugin/plugin.json": {
        name: "p",
        agents: ["./custom/reviewer.md"],
        skills: "./more-skills",
        outputStyles: "./styles",
        lspServers: { ts: { command: "tsserver" } },
      },
      "plugins/p/custom/reviewer.md": "---\ndescription: Reviews\n---\nReview.",
      "plugins/p/agents/helper.md": "---\ndescription: Helps\n---\nHelp.",
    });
    const out = (await keelJson(ws, ["plugins"])).json();
    const file = ws.path("plugins", "p", ".claude-plugin", "plugin.json");
    const shown = out.diagnostics.map((d: { severity: string; file: string; path: string }) => [d.severity, d.file, d.path]);
    expect(shown).toEqual([
      ["info", file, "agents"],
      ["info", file, "skills"],
      ["info", file, "outputStyles"],
      ["info", file, "lspServers"],
    ]);
    expect(out.diagnostics[0].message).toContain('keel does not read "agents"');
    expect(out.diagnostics[0].message).toContain("move the files there");
    expect(informational(out.plugins[0])).toContain("agent:helper");
  });

  it("a manifest path that is a symbolic link out of the plugin (workflows, hooks, mcpServers, commands) is refused: nothing of the file is read or shown", async () => {
    ws = makeWorkspace({
      "plugins/p/.claude-plugin/plugin.json": { name: "p", workflows: "./wf.json", hooks: "./hk.json", mcpServers: "./mcp.json", commands: "./cmds" },
    });
    // another project's files (and a secret) next to the workspace
    const outside = (name: string, text: string) => {
      writeFileSync(join(ws.root, "..", name), text);
      return join(ws.root, "..", name);
    };
    symlinkSync(
      outside("other-workflows.json", JSON.stringify({ workflows: [{ name: "theirs", steps: ["THEIR STEP"] }] })),
      ws.path("plugins", "p", "wf.json"),
    );
    symlinkSync(outside("dotenv", "OPENAI_API_KEY=sk-outside-secret"), ws.path("plugins", "p", "hk.json"));
    symlinkSync(outside("mcp-outside.json", JSON.stringify({ mcpServers: { theirs: { command: "node" } } })), ws.path("plugins", "p", "mcp.json"));
    mkdirSync(join(ws.root, "..", "cmds"));
    writeFileSync(join(ws.root, "..", "cmds", "leak.md"), "OUTSIDE COMMAND");
    symlinkSync(join(ws.root, "..", "cmds"), ws.path("plugins", "p", "cmds"));
    const plugins = await keelJson(ws, ["plugins"]);
    expect(plugins.stdout).not.toContain("OPENAI_API");
    const out = plugins.json();
    const reasons = out.diagnostics.map((d: { path: string; message: string }) => `${d.path}: ${d.message}`).join("\n");
    for (const field of ["workflows", "hooks", "mcpServers", "commands"])
      expect(reasons).toMatch(new RegExp(`${field}: .*leads outside the plugin directory through a symbolic link`));
    expect(out.plugins[0].contributions.mcpServers).toEqual([]);
    expect(out.plugins[0].contributions.workflows).toBe(0);
    const list = await keelJson(ws, ["workflow", "list"]);
    expect(list.stdout).not.toContain("theirs");
    expect(list.stdout).not.toContain("leak");
  });

  it("a plugins/ folder with none of commands/, agents/, skills/, hooks/ and no manifest is not a plugin", async () => {
    ws = withPlugins();
    const out = (await keelJson(ws, ["plugins"])).json();
    expect(out.plugins.map((p: { name: string }) => p.name)).not.toContain("not-a-plugin");
  });
});
