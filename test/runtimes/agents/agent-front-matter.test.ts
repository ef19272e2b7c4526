import { afterEach, describe, expect, it } from "vitest";
import { useOpenAIServer, type ChatRequestBody } from "../../helpers/openai-server.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const server = useOpenAIServer();
let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

const toolNames = (r: ChatRequestBody) => (r.tools ?? []).map((t) => t.function.name).sort();

/** Runs the parent, which delegates once to `agent`; returns the child's first model request. */
async function childRequest(agent: string): Promise<ChatRequestBody> {
  const before = server.requests.length;
  server.push({ toolCalls: [{ id: "d1", name: "delegate_agent", arguments: { prompt: "TASK", agent } }] }, { text: "child done" }, { text: "parent done" });
  const r = await runKeel(["--json", "run", "go"], { cwd: ws.root, env: ws.env });
  expect(r.exitCode, r.stderr).toBe(0);
  const child = server.requests[before + 1]!;
  expect(child.messages[0]!.content).toContain(`${agent.toUpperCase()}-PROMPT`);
  return child;
}

async function agentDiagnostics(): Promise<{ severity: string; message: string }[]> {
  const tools = await runKeel(["--json", "tools"], { cwd: ws.root, env: ws.env });
  return tools.json<{ diagnostics: { source: string; severity: string; message: string }[] }>().diagnostics.filter((d) => d.source === "agent");
}

describe("Claude Code agent front matter beyond tools", () => {
  it("disallowedTools removes those tools (and aliases of them) from the sub-agent, which otherwise inherits every tool", async () => {
    ws = makeWorkspace({
      // a plugin alias of bash: disallowing Bash must take it too, or the child runs shell commands under another name
      "plugins/short/plugin.json": { name: "short", tool_aliases: [{ name: "sh", base_tool: "bash" }] },
      ".claude/agents/safe.md": "---\nname: safe\ndescription: Everything but the shell and writes\ndisallowedTools: Bash, Write, Edit\n---\nSAFE-PROMPT",
      ".claude/agents/narrow.md":
        "---\nname: narrow\ndescription: Reads and runs, never git push\ntools: Read, Bash, Grep\ndisallowedTools:\n  - Bash(git push:*)\n---\nNARROW-PROMPT",
    });
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl }, permissions: { allow: ["delegate_agent"] } });
    const safe = toolNames(await childRequest("safe"));
    expect(safe).toContain("read_file");
    expect(safe).toContain("grep");
    expect(safe).not.toContain("bash");
    expect(safe).not.toContain("sh");
    expect(safe).not.toContain("write_file");
    expect(safe).not.toContain("edit_file");
    // a specifier keel cannot express for a sub-agent removes the whole tool (narrower, never wider)
    const narrow = toolNames(await childRequest("narrow"));
    expect(narrow).toEqual(["grep", "read_file"]);
    const diagnostics = await agentDiagnostics();
    expect(diagnostics.some((d) => d.severity === "warning" && /"Bash\(git push:\*\)" has a specifier.*the whole tool "bash" is removed/.test(d.message))).toBe(
      true,
    );
  });

  it("disallowedTools naming a Claude Code tool keel does the work of otherwise (Task, SlashCommand, TodoWrite) removes that keel tool", async () => {
    ws = makeWorkspace({
      ".claude/agents/leaf.md": "---\nname: leaf\ndescription: Works alone\ndisallowedTools: Task, SlashCommand, TodoWrite, WebFetch\n---\nLEAF-PROMPT",
    });
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl }, permissions: { allow: ["delegate_agent"] } });
    const leaf = toolNames(await childRequest("leaf"));
    // Old code: "no counterpart", nothing removed — the child could start sub-agents and run workflows it was told not to.
    expect(leaf).not.toContain("delegate_agent");
    expect(leaf).not.toContain("workflow_run");
    expect(leaf).not.toContain("todo_write");
    expect(leaf).toContain("read_file");
    expect(leaf).toContain("bash");
    const diagnostics = await agentDiagnostics();
    expect(diagnostics.some((d) => d.severity === "info" && /"WebFetch" is a Claude Code tool keel has no counterpart for/.test(d.message))).toBe(true);
    expect(diagnostics.some((d) => /"Task"|"SlashCommand"|"TodoWrite"/.test(d.message))).toBe(false);
  });

  it("fields keel does not act on get an info diagnostic naming them; a disallowedTools keel cannot read leaves the agent no tools", async () => {
    ws = makeWorkspace({
      ".claude/agents/bold.md": "---\nname: bold\ndescription: Does anything\npermissionMode: bypassPermissions\nmaxTurns: 3\ncolor: red\n---\nBOLD-PROMPT",
      ".claude/agents/odd.md": "---\nname: odd\ndescription: Odd deny list\ndisallowedTools: {Bash: true}\n---\nODD-PROMPT",
    });
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl }, permissions: { allow: ["delegate_agent"] } });
    const diagnostics = await agentDiagnostics();
    const bold = diagnostics.find((d) => /Agent "bold": keel does not support/.test(d.message));
    expect(bold?.severity).toBe("info");
    expect(bold?.message).toContain('"permissionMode", "maxTurns"');
    expect(bold?.message).not.toContain("color");
    expect(diagnostics.find((d) => /Agent "odd": "disallowedTools" must be/.test(d.message))?.severity).toBe("error");
    expect(toolNames(await childRequest("odd"))).toEqual([]);
  });
});
