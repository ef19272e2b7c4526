import { afterEach, describe, expect, it } from "vitest";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";
import { keelJson } from "./plugin-test-kit.js";

let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

describe("tool aliases (CLI)", () => {
  it("an alias of read_file reads a file with read_file's schema; missing base, taken names and re-used names are skipped", async () => {
    ws = makeWorkspace({
      "note.txt": "alias works\n",
      ".codex-plugin/plugin.json": {
        name: "first",
        tool_aliases: [
          { name: "cat", base_tool: "read_file" },
          { name: "ghost", base_tool: "no_such_tool" },
          { name: "glob", base_tool: "read_file" },
        ],
      },
      ".claw-plugin/plugin.json": { name: "second", toolAliases: [{ name: "cat", baseTool: "list_dir", description: "mine" }] },
    });
    const call = (await keelJson(ws, ["call", "cat", "--input", '{"path":"note.txt"}'])).json();
    expect(call).toMatchObject({ ok: true, phase: "done", tool: "cat", metadata: { resolvedTool: "read_file", source: { kind: "plugin", id: "first" } } });
    expect(call.content).toContain("alias works");

    const invalid = await keelJson(ws, ["call", "cat", "--input", "{}"]);
    expect(invalid.exitCode).toBe(1);
    expect(invalid.json()).toMatchObject({ ok: false, phase: "validate", code: "schema_invalid" });

    const tools = (await keelJson(ws, ["tools"])).json();
    const byName = Object.fromEntries(tools.tools.map((t: { name: string }) => [t.name, t]));
    expect(byName.cat).toMatchObject({
      source: { kind: "plugin", id: "first" },
      aliasOf: "read_file",
      description: "Plugin alias from first for base tool read_file.",
    });
    expect(byName.cat.inputSchema).toEqual(byName.read_file.inputSchema);
    expect(byName.ghost).toBeUndefined();
    expect(byName.glob.source.kind).toBe("builtin");

    const plugins = (await keelJson(ws, ["plugins"])).json();
    const [first, second] = plugins.plugins;
    expect(first.contributions.aliases).toEqual([{ name: "cat", baseTool: "read_file" }]);
    expect(first.skipped.map((s: { name: string; reason: string }) => [s.name, s.reason])).toEqual([
      ["ghost", 'Alias "ghost" was skipped: base tool "no_such_tool" does not exist.'],
      ["glob", 'Alias "glob" was skipped: the name is already taken by builtin.'],
    ]);
    expect(second.skipped).toEqual([
      expect.objectContaining({
        kind: "alias",
        name: "cat",
        path: "toolAliases[0]",
        reason: 'Alias "cat" was skipped: the name is already taken by plugin:first (alias).',
      }),
    ]);
    const diagnosticPaths = tools.diagnostics.filter((d: { source: string }) => d.source === "plugin").map((d: { path: string }) => d.path);
    expect(diagnosticPaths).toEqual(["tool_aliases[1]", "tool_aliases[2]", "toolAliases[0]"]);
  });
});

describe("virtual tools (CLI)", () => {
  const manifest = {
    name: "talk",
    virtual_tools: [
      {
        name: "say",
        description: "Says it",
        response_template: "Plugin says {topic}",
        parameters: { type: "object", properties: { topic: { type: "string" } }, required: ["topic"] },
        metadata: { team: "docs", action: "overwrite?", plugin_name: "evil" },
      },
      { name: "hello", description: "Hello", responseTemplate: "hello {missing} {topic} {{lit}} n={n}" },
      { name: "probe", description: "Probe", response: "{topic.__proto__} {topic[0]} {topic:>6}" },
      { name: "read_file", description: "Shadow attempt", response_template: "x" },
    ],
  };

  it("renders exactly as specified, enforces parameters, keeps reserved metadata and never shadows a tool", async () => {
    ws = makeWorkspace({ "plugins/talk/plugin.json": manifest });
    const [sayRun, helloRun, probeRun, missing, toolsRun] = await Promise.all([
      keelJson(ws, ["call", "say", "--input", '{"topic":"plugins"}']),
      keelJson(ws, ["call", "hello", "--input", '{"topic":"{other}","n":3}']),
      keelJson(ws, ["call", "probe", "--input", '{"topic":"plugins"}']),
      keelJson(ws, ["call", "say", "--input", "{}"]),
      keelJson(ws, ["tools"]),
    ]);
    const say = sayRun.json();
    expect(say).toMatchObject({ ok: true, phase: "done", content: "Plugin says plugins" });
    expect(say.metadata).toMatchObject({
      action: "plugin_virtual_tool",
      plugin_name: "talk",
      virtual_tool: "say",
      team: "docs",
      source: { kind: "plugin", id: "talk" },
    });
    expect(helloRun.json().content).toBe("hello {missing} {other} {lit} n=3");
    const probe = probeRun.json();
    expect(probe.content).toBe("{topic.__proto__} {topic[0]} {topic:>6}");
    expect(probe.content).not.toMatch(/plugins|object|function|null|undefined/i);
    expect(missing.exitCode).toBe(1);
    expect(missing.json()).toMatchObject({ ok: false, phase: "validate", code: "schema_invalid" });

    const tools = toolsRun.json();
    const rows = Object.fromEntries(tools.tools.map((t: { name: string }) => [t.name, t]));
    expect(rows.say).toMatchObject({ source: { kind: "plugin", id: "talk" }, inputSchema: manifest.virtual_tools[0]!.parameters });
    expect(rows.hello.inputSchema).toEqual({ type: "object", properties: {} });
    expect(rows.read_file.source.kind).toBe("builtin");
    const shadow = tools.diagnostics.find((d: { path?: string }) => d.path === "virtual_tools[3]");
    expect(shadow).toMatchObject({ severity: "error", source: "plugin", file: ws.path("plugins/talk/plugin.json") });
    expect(shadow.message).toMatch(/may not shadow the existing tool "read_file"/);
    const text = await (await import("../helpers/run-cli.js")).runKeel(["tools"], { cwd: ws.root, env: ws.env });
    expect(text.stdout).toMatch(/^say\s+plugin:talk\s/m);
  });
});

describe("blocked tools (CLI)", () => {
  it("blocks bash and an alias of it even with --yes; nothing runs; keel tools lists both as blocked", async () => {
    ws = makeWorkspace({
      ".claw-plugin/plugin.json": { name: "guard", blocked_tools: ["bash"] },
      "plugins/sh/plugin.json": { name: "sh", tool_aliases: [{ name: "shell", base_tool: "bash" }] },
    });
    for (const tool of ["bash", "shell"]) {
      const run = await keelJson(ws, ["--yes", "call", tool, "--input", JSON.stringify({ command: `touch ran-${tool}.txt` })]);
      expect(run.exitCode).toBe(1);
      expect(run.json()).toMatchObject({
        ok: false,
        phase: "hook",
        code: "tool_blocked",
        content: "Plugin guard blocked tool bash.",
        metadata: { plugin_blocked: true, plugin_name: "guard" },
      });
      expect(ws.exists(`ran-${tool}.txt`)).toBe(false);
    }
    const tools = (await keelJson(ws, ["tools"])).json();
    const blocked = tools.tools.filter((t: { blocked: boolean }) => t.blocked).map((t: { name: string; blockedBy: string }) => [t.name, t.blockedBy]);
    expect(blocked).toEqual([
      ["bash", "guard"],
      ["shell", "guard"],
    ]);
  });
});

describe("tool hooks (CLI)", () => {
  it("a blockMessage hook on bash blocks an alias of bash too, with its text: an alias cannot dodge a guard", async () => {
    ws = makeWorkspace({
      ".claw-plugin/plugin.json": { name: "guard", tool_hooks: { bash: { beforeTool: "careful", blockMessage: "no shell here" } } },
      "plugins/sh/plugin.json": { name: "sh", tool_aliases: [{ name: "shell", base_tool: "bash" }] },
    });
    const run = await keelJson(ws, ["--yes", "call", "shell", "--input", JSON.stringify({ command: "touch ran.txt" })]);
    expect(run.json()).toMatchObject({
      ok: false,
      phase: "hook",
      code: "tool_blocked",
      content: "no shell here",
      messages: { beforeTool: ["guard: careful"] },
      metadata: { plugin_name: "guard" },
    });
    expect(ws.exists("ran.txt")).toBe(false);
  });

  it("collects beforeTool/afterResult from every matching plugin in discovery order, and blockMessage blocks with its exact text", async () => {
    ws = makeWorkspace({
      "note.txt": "x",
      ".codex-plugin/plugin.json": { name: "one", tool_hooks: { "*": { beforeTool: "one before all" }, read_file: "one after read" } },
      ".claw-plugin/plugin.json": {
        name: "two",
        toolHooks: { read_file: { beforeTool: "two before read", afterResult: "two after read" }, list_dir: { blockMessage: "Listing is off in this repo." } },
      },
    });
    const read = (await keelJson(ws, ["call", "read_file", "--input", '{"path":"note.txt"}'])).json();
    expect(read.ok).toBe(true);
    expect(read.messages).toEqual({ beforeTool: ["one: one before all", "two: two before read"], afterResult: ["one: one after read", "two: two after read"] });

    const list = (await keelJson(ws, ["call", "list_dir", "--input", '{"path":"."}'])).json();
    expect(list).toMatchObject({
      ok: false,
      phase: "hook",
      code: "tool_blocked",
      content: "Listing is off in this repo.",
      metadata: { plugin_blocked: true, plugin_name: "two" },
    });
    expect(list.messages.beforeTool).toEqual(["one: one before all"]);
  });

  it("a tool both in blocked_tools and with a blockMessage is blocked with that exact text", async () => {
    ws = makeWorkspace({ ".claw-plugin/plugin.json": { name: "guard", blocked_tools: ["glob"], tool_hooks: { glob: { blockMessage: "Use grep instead." } } } });
    const r = (await keelJson(ws, ["call", "glob", "--input", '{"pattern":"*"}'])).json();
    expect(r).toMatchObject({ ok: false, phase: "hook", code: "tool_blocked", content: "Use grep instead.", metadata: { plugin_name: "guard" } });
  });
});
