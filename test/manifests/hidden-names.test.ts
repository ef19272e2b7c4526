import { afterEach, describe, expect, it } from "vitest";
import { hiddenCharacterProblem } from "../../manifests/identifier-text.js";
import { runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

interface Diag {
  severity: string;
  source: string;
  file?: string;
  path?: string;
  message: string;
}

describe("names from workspace files with control, bidi, tag or other invisible characters are refused at load", () => {
  it("each is refused with a diagnostic naming file, field and character; names in other scripts and the rest of the files still load", async () => {
    ws = makeWorkspace({
      "plugins/bad/plugin.json": { name: "de\u202emo", virtual_tools: [{ name: "x", response: "r" }] },
      "plugins/good/plugin.json": {
        name: "gööd-プラグイン",
        virtual_tools: [
          { name: "sa\u200by", response: "r" },
          { name: "ok_tool", response: "ok" },
        ],
        tool_aliases: [{ name: "al\u{e0041}", base_tool: "read_file" }],
      },
      ".mcp.json": { mcpServers: { "srv\u0085": { command: "node" }, fine: { command: "node", lazy: true } } },
      ".claw-workflows.json": {
        workflows: [
          { name: "wf\u2066x", steps: ["a"] },
          { name: "überprüfen", steps: ["a"] },
        ],
      },
      ".claude/agents/ag\u200dent.md": "---\ndescription: d\n---\nhi",
      ".claude/agents/good.md": "---\nname: agent\u202eevil\ndescription: d\n---\nhi",
      ".claude/agents/фильтр.md": "---\ndescription: d\n---\nhi",
      ".claude/skills/sk\ufe0fill/SKILL.md": "---\ndescription: d\n---\nhi",
      ".claude/commands/cm\u2028d.md": "hello",
      ".claude/commands/ok.md": "hello",
    });
    const opts = { cwd: ws.root, env: ws.env };
    const tools = await runKeel(["--json", "tools"], opts);
    const diags = tools.json().diagnostics as Diag[];
    const refused = (source: string, file: string, message: string, path?: string) =>
      expect(
        diags.find((d) => d.source === source && d.file === ws!.path(file) && (path === undefined || d.path === path)),
        JSON.stringify(diags, null, 1),
      ).toMatchObject({ severity: "error", message: expect.stringContaining(message) });
    refused("plugin", "plugins/bad/plugin.json", "name holds an invisible character (U+202E) at position 3", "name");
    refused("plugin", "plugins/good/plugin.json", "holds an invisible character (U+200B)", "virtual_tools[0].name");
    refused("plugin", "plugins/good/plugin.json", "holds an invisible character (U+E0041)", "tool_aliases[0].name");
    refused("mcp", ".mcp.json", "its name holds a control character (U+0085)", "mcpServers.srv\u0085");
    refused("workflow", ".claw-workflows.json", "holds an invisible character (U+2066)", "workflows[0].name");
    refused("agent", ".claude/agents/ag\u200dent.md", "holds an invisible character (U+200D)");
    refused("agent", ".claude/agents/good.md", "holds an invisible character (U+202E)");
    refused("skill", ".claude/skills/sk\ufe0fill/SKILL.md", "holds an invisible character (U+FE0F)");
    refused("command", ".claude/commands/cm\u2028d.md", "holds a line or paragraph separator (U+2028)");

    const names = (tools.json().tools as { name: string }[]).map((t) => t.name);
    expect(names).toContain("ok_tool");
    expect(names.some((n) => /[\u200b\u{e0041}]/u.test(n))).toBe(false);
    const plugins = await runKeel(["--json", "plugins"], opts);
    expect(JSON.stringify(plugins.json())).toContain("gööd-プラグイン");
    const workflows = (await runKeel(["--json", "workflow", "list"], opts)).json().workflows as { name: string }[];
    expect(workflows.map((w) => w.name).sort()).toEqual(["ok", "überprüfen"]);
    const mcp = await runKeel(["--json", "mcp", "list"], opts);
    expect((mcp.json().servers as { name: string }[]).map((s) => s.name)).toEqual(["fine"]);
  });

  it("hiddenCharacterProblem allows letters of any script, symbols and spaces; refuses controls, format and default-ignorable characters", () => {
    for (const ok of ["überprüfen", "プラグイン", "my plugin", "🚀-deploy", "a.b:c/d", "نام"]) expect(hiddenCharacterProblem(ok), ok).toBeUndefined();
    for (const bad of [
      "a\tb",
      "a\nb",
      "a\u007fb",
      "a\u009bb",
      "a\u00adb",
      "a\u034fb",
      "a\u200bb",
      "a\u202eb",
      "a\u2069b",
      "a\ufeffb",
      "a\u{e0020}b",
      "a\u3164b",
      "a\ud800b",
    ])
      expect(hiddenCharacterProblem(bad), JSON.stringify(bad)).toMatch(/^holds .* at position 2/);
  });
});
