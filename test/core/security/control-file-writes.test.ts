import { mkdirSync, symlinkSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../../core/permissions.js";
import { editFileTool } from "../../../core/tools/edit-file.js";
import { writeFileTool } from "../../../core/tools/write-file.js";
import { runKeel } from "../../helpers/run-cli.js";
import { openTestHost } from "../../helpers/test-host.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

const write = writeFileTool();
const edit = editFileTool();

describe("a tool's write to a file that can widen what keel runs or allows asks, whatever allow rules say", () => {
  it("config files, MCP manifests, plugin manifests, Claude settings, skills and prompt commands, at any depth; other files follow the rules", () => {
    ws = makeWorkspace({ "package.json": { name: "x" } });
    const p = new PermissionPolicy({ allow: ["write_file", "edit_file"] });
    const decide = (path: string) => p.decide("write_file", write, { path, content: "{}" }, ws!.root);
    for (const path of [
      "keel.config.json",
      "sub/dir/keel.config.yaml",
      ".keelrc",
      ".config/keelrc.json",
      // the legacy layers are full keel config (allow rules, hooks) too
      ".claw-config.json",
      ".codex-config.json",
      ".mcp.json",
      "packages/a/mcp.json",
      ".codex-mcp.json",
      ".claw-plugin/plugin.json",
      "plugins/x/plugin.json",
      "plugins/x/hooks/hooks.json",
      ".gemini/extensions/e/gemini-extension.json",
      ".claude/settings.json",
      ".claude/settings.local.json",
      ".claude/skills/release/SKILL.md",
      ".claude/commands/deploy.md",
      "plugins/x/commands/sub/run.md",
      ".gemini/commands/g.toml",
    ])
      expect(decide(path), path).toMatchObject({ action: "ask", reason: expect.stringContaining("allow rules do not approve it") });
    for (const path of ["src/a.ts", "README.md", "docs/settings.json", "config.json", "src/plugin.ts", "notes/commands.md"])
      expect(decide(path), path).toMatchObject({ action: "allow", rule: "write_file" });
    // deny rules still win
    const denying = new PermissionPolicy({ allow: ["write_file"], deny: ["write_file(**/.mcp.json)"] });
    expect(denying.decide("write_file", write, { path: "a/.mcp.json", content: "{}" }, ws.root)).toMatchObject({ action: "deny" });
  });

  it("a link to a control file counts where it leads (a link `notes.json → .mcp.json`)", () => {
    ws = makeWorkspace({ ".mcp.json": { mcpServers: {} } });
    symlinkSync(ws.path(".mcp.json"), ws.path("notes.json"));
    symlinkSync(ws.path(".claude-plugin-missing.json"), ws.path("dangling.json")); // dangling: leads to an ordinary name
    const p = new PermissionPolicy({ allow: ["write_file"] });
    expect(p.decide("write_file", write, { path: "notes.json", content: "{}" }, ws.root)).toMatchObject({
      action: "ask",
      reason: expect.stringMatching(/^\.mcp\.json is an MCP manifest/),
    });
    expect(p.decide("write_file", write, { path: "dangling.json", content: "{}" }, ws.root)).toMatchObject({ action: "allow" });
  });

  it("package.json asks only when the write changes its `keel` field, judged on the text it leaves (write_file and edit_file)", () => {
    ws = makeWorkspace({
      "package.json": '{\n  "name": "x",\n  "kexyz": 1,\n  "dependencies": {}\n}\n',
      "sub/package.json": '{"keel": {"sandbox": "read-only"}}',
    });
    const p = new PermissionPolicy({ allow: ["write_file", "edit_file"] });
    const writing = (path: string, content: string) => p.decide("write_file", write, { path, content }, ws!.root).action;
    const editing = (path: string, old_string: string, new_string: string) => p.decide("edit_file", edit, { path, old_string, new_string }, ws!.root).action;
    // a dependency added: no keel field before or after
    expect(writing("package.json", '{"name": "x", "dependencies": {"y": "1"}}')).toBe("allow");
    expect(editing("package.json", '"dependencies": {}', '"dependencies": {"y": "1"}')).toBe("allow");
    // a keel field added, even by an edit whose strings do not name it (`"kexyz"` becomes `"keel"`)
    expect(writing("package.json", '{"name": "x", "keel": {"permissions": {"allow": ["bash"]}}}')).toBe("ask");
    expect(editing("package.json", 'xyz": 1', 'el": {"permissions": {"allow": ["bash"]}}')).toBe("ask");
    // an existing keel field changed or removed asks; the same value rewritten does not
    expect(writing("sub/package.json", '{"keel": {"sandbox": "off"}}')).toBe("ask");
    expect(writing("sub/package.json", '{"name": "y"}')).toBe("ask");
    expect(writing("sub/package.json", '{"name": "y", "keel": {"sandbox": "read-only"}}')).toBe("allow");
    // a new package.json with a keel field asks; text that is no JSON object holds no config
    expect(writing("new/package.json", '{"keel": {}}')).toBe("ask");
    expect(writing("new/package.json", "not json")).toBe("allow");
    // a package.json keel cannot read as a bounded regular file (a committed link to /dev/zero) asks, without hanging the check
    mkdirSync(ws.path("zero"));
    symlinkSync("/dev/zero", ws.path("zero", "package.json"));
    expect(writing("zero/package.json", "{}")).toBe("ask");
    // a tool that cannot say what it leaves behind asks (fails closed)
    const opaque = { ...write, name: "plugin_write", nextText: undefined };
    expect(p.decide("plugin_write", opaque, { path: "package.json" }, ws.root)).toMatchObject({ action: "ask" });
  });
});

describe("end to end: keel call with an allow rule for write_file", () => {
  it("writes src files without asking, asks for .mcp.json (approval_required without a terminal, nothing written), and --yes approves it", async () => {
    ws = makeWorkspace({}, { git: true });
    ws.writeUserConfig({ permissions: { allow: ["write_file"] } });
    const call = (path: string, ...flags: string[]) =>
      runKeel([...flags, "--json", "call", "write_file", "--input", JSON.stringify({ path, content: '{"mcpServers": {}}' })], { cwd: ws!.root, env: ws!.env });
    const src = await call("src/a.json");
    expect(src.exitCode, src.stderr).toBe(0);
    const asked = await call(".mcp.json");
    expect(asked.exitCode).toBe(1);
    expect(asked.json()).toMatchObject({ ok: false, phase: "permission", code: "approval_required" });
    expect(asked.json().content).toContain(".mcp.json is an MCP manifest (servers keel starts)");
    // it says how to approve it, and not to add an allow rule (which would not)
    expect(asked.json().content).toContain("Re-run with --yes, or answer the prompt on a terminal (an allow rule does not approve this write)");
    expect(asked.json().content).not.toContain("add an allow rule");
    expect(ws.exists(".mcp.json")).toBe(false);
    const approved = await call(".mcp.json", "--yes");
    expect(approved.exitCode, approved.stderr).toBe(0);
    expect(ws.read(".mcp.json")).toBe('{"mcpServers": {}}');
  });
});

describe("an answer of always (for this session) covers the tool's other calls, not a control-file write", () => {
  it("write_file approved always for src/a.txt: the next write to .mcp.json in the session is asked again", async () => {
    ws = makeWorkspace({}, { git: true });
    const asked: string[] = [];
    const approver = {
      approve: async (req: { input: unknown }) => {
        asked.push((req.input as { path: string }).path);
        return asked.length === 1 ? ("always" as const) : ("no" as const);
      },
    };
    const host = await openTestHost(ws);
    try {
      const run = { sessionId: "s", sessionAllow: new Set<string>(), approver };
      expect((await host.runTool({ tool: "write_file", input: { path: "src/a.txt", content: "a" } }, run)).ok).toBe(true);
      expect((await host.runTool({ tool: "write_file", input: { path: "src/b.txt", content: "b" } }, run)).ok).toBe(true); // the always holds
      const control = await host.runTool({ tool: "write_file", input: { path: ".mcp.json", content: '{"mcpServers": {}}' } }, run);
      expect(asked).toEqual(["src/a.txt", ".mcp.json"]);
      expect(control).toMatchObject({ ok: false, code: "user_denied" });
      expect(ws.exists(".mcp.json")).toBe(false);
    } finally {
      await host.close();
    }
  });
});
