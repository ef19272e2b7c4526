import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { useOpenAIServer } from "../helpers/openai-server.js";
import { runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";
import { EVERYTHING, nodeServer } from "../runtimes/mcp/mcp-test-kit.js";
import { connectStdio } from "../runtimes/serve/serve-test-kit.js";
import { writeUserPlugin } from "../plugins/plugin-test-kit.js";

const PROTOCOL_SERVER = fileURLToPath(new URL("../runtimes/mcp/fixtures/protocol-server.mjs", import.meta.url));

const server = useOpenAIServer();
let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

/** Each place in `text` that names a way to trust for one run, with some text around it (none: an empty list). */
function leaks(text: string): string[] {
  return text.match(/.{0,160}(--trust|KEEL_TRUST).{0,60}/g) ?? [];
}

/** An untrusted workspace holding one of each thing keel holds back until it is trusted. */
function heldBackWorkspace(): TempWorkspace {
  const w = makeWorkspace(
    {
      ".mcp.json": { mcpServers: { echo: nodeServer(EVERYTHING) } },
      ".claude/commands/status.md": "---\nallowed-tools: Bash(git status:*)\n---\nStatus: !`git status --short`",
      ".claude/settings.json": { hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: "echo hi" }] }] } },
      "plugins/coded/plugin.json": { name: "coded", main: "index.mjs" },
      "plugins/coded/index.mjs": "export default { tools: [] };\n",
      "keel.config.json": { permissions: { allow: ["bash"] } },
      ".claw-workflows.json": { workflows: [{ name: "mark", steps: [{ id: "m", tool: "write_file", input: { path: "m.txt", content: "x" } }] }] },
    },
    { git: true },
  );
  w.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
  return w;
}

describe("text keel sends a model says to ask the user to run keel trust, never --trust or KEEL_TRUST", () => {
  it("an agent turn calling each held-back thing of an untrusted workspace: the model reads no way to trust for one run; the user's terminal still has them", async () => {
    ws = heldBackWorkspace();
    server.push({
      toolCalls: [
        { name: "mcp__echo__echo", arguments: { message: "hi" } },
        { name: "mcp_list_resources", arguments: { server: "echo" } },
        { name: "config_list", arguments: {} },
        { name: "workflow_run", arguments: { workflow_name: "mark" } },
        { name: "workflow_get", arguments: { workflow_name: "mark" } },
      ],
    });
    server.push({ text: "done" });
    const run = await runKeel(["--yes", "run", "/status"], { cwd: ws.root, env: ws.env });
    expect(run.exitCode, run.stderr).toBe(0);
    const sent = JSON.stringify(server.requests);
    // The calls reached the model as refusals that say what to do.
    expect(sent).toContain("[output of `git status --short` not included: this workspace is not trusted");
    expect(sent).toContain('MCP server \\"echo\\" is defined by this untrusted workspace');
    expect(sent).toContain("permissions.allow");
    expect(sent).toContain("ask the user to run it in their own terminal");
    expect(server.requests.length).toBe(2);
    expect(leaks(sent)).toEqual([]);
    // The user's terminal: what the config, the hooks and the code plugin hold back says how to trust for one run.
    expect(run.stderr).toMatch(/config may only restrict.*--trust/);
    expect(run.stderr).toMatch(/hooks in .* did not run.*--trust/);
    const plugins = await runKeel(["plugins"], { cwd: ws.root, env: ws.env });
    expect(plugins.stdout + plugins.stderr).toMatch(/Plugin coded names a code module.*--trust/);
    const list = await runKeel(["mcp", "list"], { cwd: ws.root, env: ws.env });
    expect(list.stdout).toContain("run with --trust, set KEEL_TRUST=1, or run `keel trust`");
    // `keel call` prints to the user (or a script): the same refusal names the way to trust for one run.
    const call = await runKeel(["--json", "call", "mcp_list_resources", "--input", '{"server":"echo"}'], { cwd: ws.root, env: ws.env });
    expect(call.json<{ content: string }>().content).toContain("was not started: run `keel trust` first, or re-run with --trust.");
  });

  it("keel mcp serve (stdio): its client, a model's host, gets results without a way to trust for one run", async () => {
    ws = heldBackWorkspace();
    const { client } = await connectStdio(ws, { globals: [] });
    try {
      const texts: string[] = [];
      const call = async (name: string, args: Record<string, unknown>) => {
        const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
        texts.push(JSON.stringify(r));
        return r;
      };
      expect((await call("mcp_call_tool", { server: "echo", tool_name: "echo", arguments: { message: "hi" } })).isError).toBe(true);
      expect((await call("mcp_list_resources", { server: "echo" })).isError).toBe(true);
      await call("config_list", {});
      const prompt = await client.getPrompt({ name: "status", arguments: {} });
      texts.push(JSON.stringify(prompt), JSON.stringify(await client.listTools()), JSON.stringify(await client.listPrompts()));
      const all = texts.join("\n");
      expect(all).toContain('MCP server \\"echo\\" is defined by this untrusted workspace');
      expect(all).toContain("not included: this workspace is not trusted");
      expect(all).toContain("permissions.allow");
      expect(leaks(all)).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it("a trusted workspace's server whose file changed mid-session: the model's call fails saying to ask the user to review it with keel trust", async () => {
    const serverFile = `import ${JSON.stringify(pathToFileURL(PROTOCOL_SERVER).href)};\n`;
    ws = makeWorkspace(
      { "server.mjs": serverFile, ".mcp.json": { mcpServers: { a: { command: process.execPath, args: ["server.mjs"], lazy: true } } } },
      { git: true },
    );
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    const keel = (...args: string[]) => runKeel(["--yes", ...args], { cwd: ws.root, env: ws.env });
    expect((await keel("trust")).exitCode).toBe(0);
    const input = { pair: ["x", 1] };
    // The user's call lists the server's tools (kept for the next run) and works.
    expect((await keel("--json", "call", "mcp__a__tuple", "--input", JSON.stringify(input))).json()).toMatchObject({ ok: true });
    server.push({ toolCalls: [{ name: "write_file", arguments: { path: "server.mjs", content: `${serverFile}// changed\n` } }] });
    server.push({ toolCalls: [{ name: "mcp__a__tuple", arguments: input }] });
    server.push({ text: "done" });
    const run = await keel("run", "use the server");
    expect(run.exitCode, run.stderr).toBe(0);
    const sent = JSON.stringify(server.requests.at(-1));
    expect(sent).toContain("server.mjs changed since this workspace was trusted, so the server was not started");
    expect(sent).toContain("ask the user to run it in their own terminal");
    expect(leaks(sent)).toEqual([]);
    // The user's terminal still says how to trust for one run.
    const list = await keel("mcp", "list");
    expect(list.stdout + list.stderr).toMatch(/changed since this workspace was trusted.*--trust/);
  });

  it("your workflow running an untrusted workspace's: the model's workflow_run reads the model's wording, your keel workflow run yours", async () => {
    ws = makeWorkspace({
      ".claw-workflows.json": { workflows: [{ name: "inner", steps: [{ id: "m", tool: "write_file", input: { path: "m.txt", content: "x" } }] }] },
    });
    writeUserPlugin(ws, "outer", { name: "outer", workflows: [{ name: "outer", steps: [{ id: "i", workflow: "inner" }] }] });
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    server.push({ toolCalls: [{ name: "workflow_run", arguments: { workflow_name: "outer" } }] });
    server.push({ text: "done" });
    const run = await runKeel(["--yes", "run", "run outer"], { cwd: ws.root, env: ws.env });
    expect(run.exitCode, run.stderr).toBe(0);
    const sent = JSON.stringify(server.requests.at(-1));
    expect(sent).toContain('Workflow \\"inner\\" is defined in');
    expect(leaks(sent)).toEqual([]);
    const yours = await runKeel(["--yes", "workflow", "run", "outer"], { cwd: ws.root, env: ws.env });
    expect(yours.stdout + yours.stderr).toMatch(/Workflow "inner" is defined in .*--trust/);
    expect(ws.exists("m.txt")).toBe(false);
  });
});
