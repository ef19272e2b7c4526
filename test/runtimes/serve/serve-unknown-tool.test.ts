import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import type { TempWorkspace } from "../../helpers/temp-workspace.js";
import { FAULT } from "../mcp/mcp-test-kit.js";
import { connectStdio, serveWorkspace, UPSTREAM } from "./serve-test-kit.js";

let ws: TempWorkspace | undefined;
let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
  ws?.cleanup();
  ws = undefined;
});

/** The protocol error a call of `name` gets (the MCP spec: an unknown tool is a JSON-RPC error, -32602), its message. */
async function refusal(name: string): Promise<string> {
  const error = await client!.callTool({ name, arguments: {} }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
  return (error as McpError).message;
}

/** A served workspace whose `.mcp.json` also holds `bad`, a server that exits at start, and a workflow with a shell step. */
function workspace(): TempWorkspace {
  const w = serveWorkspace({
    ".mcp.json": { mcpServers: { up: { command: process.execPath, args: [UPSTREAM] }, bad: { command: process.execPath, args: [FAULT, "exit-at-start"] } } },
  });
  w.write(".claw-workflows.json", {
    workflows: [
      {
        name: "greet",
        parameters: { type: "object", properties: { who: { type: "string" } } },
        steps: [{ id: "say", tool: "say", input: { topic: "hi {who}" } }],
      },
      { name: "deploy", steps: [{ run: "echo deployed" }] },
    ],
  });
  return w;
}

describe("keel mcp serve: a call of a tool it does not serve says why, as the agent's unknown_tool does", () => {
  it("did-you-mean among the served tools, an MCP server that did not start, a prompt command (trusted)", async () => {
    ws = workspace();
    ({ client } = await connectStdio(ws));
    // the client's McpError prefixes "MCP error -32602: " once (the SDK's own McpError on the server had it twice)
    expect(await refusal("sey")).toMatch(
      /^MCP error -32602: Unknown tool "sey": keel does not serve a tool of that name\. Did you mean "say"\? tools\/list lists the \d+ tools served\.$/,
    );
    expect(await refusal("mcp__bad__echo")).toContain('Unknown tool "mcp__bad__echo": MCP server "bad" did not start (');
    expect(await refusal("mcp__bad__echo")).toContain("run `keel mcp doctor bad`");
    expect(await refusal("workflow__hello")).toContain(
      '"hello" is a prompt command: keel mcp serve serves it as the prompt "hello" (prompts/get), not as a tool.',
    );
    // a name longer than MCP allows is neither compared nor echoed whole
    const long = await refusal("x".repeat(100_000));
    expect(long).toContain("(100000 characters; tool names have at most 128)");
    expect(long.length).toBeLessThan(400);
  });

  it("a tool --tools leaves out names the patterns it was started with", async () => {
    ws = workspace();
    ({ client } = await connectStdio(ws, { args: ["--tools", "say", "task_*"] }));
    const message = await refusal("write_file");
    expect(message).toContain('keel mcp serve was started with --tools "say" "task_*", which does not match it, so it is not served.');
    expect(message).toContain('restart keel mcp serve with a --tools pattern that matches "write_file"');
    // one that exists nowhere is unknown, with the served names it is close to
    expect(await refusal("tsk_list")).toMatch(/keel does not serve a tool of that name\. Did you mean "task_list"\?/);
  });

  it("in an untrusted workspace: the workflow that needs trust and the server not started say to ask the user to trust it, never --trust", async () => {
    ws = workspace();
    ({ client } = await connectStdio(ws, { globals: [] }));
    const workflow = await refusal("workflow__deploy");
    expect(workflow).toContain('the workflow "deploy" runs what only a trusted workspace may run');
    expect(workflow).toContain("ask the user to run `keel trust`");
    const server = await refusal("mcp__up__progress");
    expect(server).toContain('MCP server "up" is defined by this untrusted workspace (.mcp.json) and was not started');
    for (const m of [workflow, server]) {
      expect(m).not.toContain("--trust");
      expect(m).not.toContain("KEEL_TRUST");
    }
  });
});
