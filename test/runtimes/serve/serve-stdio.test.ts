import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { execa } from "execa";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MODEL_APPROVAL_STOP } from "../../../core/settle-ask.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { KEEL_BIN } from "../../helpers/run-cli.js";
import type { TempWorkspace } from "../../helpers/temp-workspace.js";
import { waitFor } from "../mcp/mcp-test-kit.js";
import { connectStdio, readEvents, serveEnv, serveWorkspace, TALK_PLUGIN, upstreamManifest } from "./serve-test-kit.js";

let ws: TempWorkspace | undefined;
let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
  ws?.cleanup();
  ws = undefined;
});

/** The text of a tool result (the SDK's result type is loose: read as `any`). */
const text = (r: any) => (r.content as { type: string; text: string }[])[0]!.text;
/** The observation keel puts under `_meta["keel/observation"]`. */
const observation = (r: any) => r._meta?.["keel/observation"] as Record<string, unknown>;

describe("keel mcp serve (stdio, SDK client)", () => {
  it("a prompt's required argument named toString must be given (Object.prototype's toString counted as given)", async () => {
    const parameters = { type: "object", properties: { toString: { type: "string" } }, required: ["toString"] };
    const wf = {
      name: "named",
      description: "Names it",
      parameters,
      prompt: "Say {toString}.",
      steps: [{ id: "say", tool: "say", input: { topic: "{toString}" } }],
    };
    ws = serveWorkspace({ ".claw-workflows.json": { workflows: [wf] } });
    ({ client } = await connectStdio(ws));
    await expect(client.getPrompt({ name: "named", arguments: {} })).rejects.toThrow(/needs the argument toString/);
    expect((await client.getPrompt({ name: "named", arguments: { toString: "it" } })).messages[0]!.content).toMatchObject({ text: "Say it." });
  });

  it("lists every kind of tool with its schema, prompts and resources, and calls a plugin virtual tool through the pipeline (origin mcp-serve)", async () => {
    ws = serveWorkspace({ "keel.config.json": { permissions: { allow: ["workflow_run"] } } });
    ws.write(".mcp.json", upstreamManifest(ws, { resources: [{ name: "notes", uri: "test://notes", text: "local notes" }] }));
    ({ client } = await connectStdio(ws));
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get("say")).toMatchObject({ description: "Says it", inputSchema: TALK_PLUGIN.virtual_tools[0]!.parameters });
    expect(byName.get("read_file")?.annotations?.readOnlyHint).toBe(true);
    expect(byName.has("task_create")).toBe(true);
    expect(byName.get("workflow__greet")?.inputSchema).toEqual({
      type: "object",
      properties: { who: { type: "string", description: "whom to greet" } },
      required: ["who"],
    });
    expect(byName.has("mcp__up__wait_for_cancel")).toBe(true);
    // A prompt command is a prompt, not a workflow tool.
    expect(byName.has("workflow__hello")).toBe(false);

    const said = await client.callTool({ name: "say", arguments: { topic: "gateways" } });
    expect(said.isError).toBeFalsy();
    expect(text(said)).toBe("Plugin says gateways");
    const obs = observation(said);
    expect(obs).toMatchObject({ ok: true, phase: "done", code: "ok", tool: "say" });
    // The call's events are committed right after the answer is sent.
    const intent = await waitFor(() => readEvents(ws!).find((e) => e.type === "tool_intent" && e.callId === (obs.metadata as { callId: string }).callId));
    expect(intent).toMatchObject({ origin: "mcp-serve", tool: "say" });

    const invalid = await client.callTool({ name: "say", arguments: {} });
    expect(invalid.isError).toBe(true);
    expect(observation(invalid)).toMatchObject({ code: "schema_invalid", phase: "validate" });

    const wf = await client.callTool({ name: "workflow__greet", arguments: { who: "Ann" } });
    expect(wf.isError, text(wf)).toBeFalsy();
    expect(text(wf)).toContain("Plugin says hello Ann");

    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual(["greet", "hello"]);
    expect((await client.getPrompt({ name: "hello", arguments: { arguments: "Bob" } })).messages[0]!.content).toEqual({
      type: "text",
      text: "Hello Bob, from a command.\n",
    });
    expect((await client.getPrompt({ name: "greet", arguments: { who: "Cy" } })).messages[0]!.content).toMatchObject({ text: "Say hello to Cy." });
    await expect(client.getPrompt({ name: "greet", arguments: {} })).rejects.toThrow(/needs the argument who/);

    const { resources } = await client.listResources();
    expect(resources).toContainEqual(expect.objectContaining({ uri: "test://notes", name: "notes" }));
    expect((await client.readResource({ uri: "test://notes" })).contents[0]).toMatchObject({ uri: "test://notes", text: "local notes" });
    expect(resources).toContainEqual(expect.objectContaining({ uri: "up://readme", name: "readme", description: "The upstream readme" }));
    expect((await client.readResource({ uri: "up://readme" })).contents[0]).toMatchObject({
      uri: "up://readme",
      text: "upstream readme",
      mimeType: "text/plain",
    });
  });

  it("a deny rule holds and an ask without elicitation is an isError result telling the client's model the decision is the user's; the rule to add goes to stderr (nothing runs)", async () => {
    ws = serveWorkspace({ "keel.config.json": { permissions: { deny: ["say"] } } });
    let stderr: () => string;
    ({ client, stderr } = await connectStdio(ws));
    const denied = await client.callTool({ name: "say", arguments: { topic: "x" } });
    expect(denied.isError).toBe(true);
    expect(observation(denied)).toMatchObject({ code: "permission_denied", phase: "permission" });

    const asked = await client.callTool({ name: "write_file", arguments: { path: "out.txt", content: "x" } });
    expect(asked.isError).toBe(true);
    expect(observation(asked)).toMatchObject({ code: "approval_required", phase: "permission" });
    expect(text(asked)).toMatch(/does not support elicitation/);
    expect(text(asked)).toContain(MODEL_APPROVAL_STOP);
    // The way to allow it is for the user (the client keeps the server's stderr as its log), not the model.
    expect(text(asked)).not.toMatch(/--yes|permissions|keel trust|allow rule/);
    // Written before the answer, but read from another pipe: a safety net for a loaded machine, not vitest's default 1 s.
    await vi.waitFor(() => expect(stderr()).toContain('{"permissions": {"allow": ["write_file"]}}'), { timeout: 60_000, interval: 20 });
    expect(ws.exists("out.txt")).toBe(false);
  });

  it("an ask becomes an elicitation to a client that supports it: accept runs the call, decline refuses it", async () => {
    ws = serveWorkspace();
    const asked: string[] = [];
    let approve = true;
    ({ client } = await connectStdio(ws, {
      elicit: (message) => {
        asked.push(message);
        return { action: "accept", content: { approve } };
      },
    }));
    const ran = await client.callTool({ name: "write_file", arguments: { path: "out.txt", content: "elicited" } });
    expect(ran.isError, text(ran)).toBeFalsy();
    expect(ws.read("out.txt")).toBe("elicited");
    expect(asked[0]).toMatch(/approval to run write_file/);
    expect(asked[0]).toContain('"path":"out.txt"');

    approve = false;
    const refused = await client.callTool({ name: "write_file", arguments: { path: "no.txt", content: "x" } });
    expect(observation(refused)).toMatchObject({ code: "user_denied" });
    expect(ws.exists("no.txt")).toBe(false);
    expect(asked).toHaveLength(2);
  });

  it("forwards an upstream server's elicitation during a call to the client that made it, and its answer back upstream", async () => {
    ws = serveWorkspace();
    const asked: string[] = [];
    ({ client } = await connectStdio(ws, {
      elicit: (message) => {
        asked.push(message);
        return { action: "accept", content: { name: "Ada" } };
      },
    }));
    const greeted = await client.callTool({ name: "mcp__up__ask_name", arguments: {} });
    expect(text(greeted), text(greeted)).toBe("Hello Ada");
    expect(asked).toEqual([expect.stringMatching(/^MCP server "up" \(called through keel\) asks: What is your name\?/)]);
    const events = await waitFor(() => {
      const all = readEvents(ws!);
      return all.some((e) => e.type === "mcp_elicitation") ? all : undefined;
    });
    expect(events!.find((e) => e.type === "mcp_elicitation")).toMatchObject({ server: "up", action: "accept" });
  });

  it("without elicitation support in the client, an upstream elicitation follows keel's policy (declined here)", async () => {
    ws = serveWorkspace();
    ({ client } = await connectStdio(ws));
    expect(text(await client.callTool({ name: "mcp__up__ask_name", arguments: {} }))).toBe("no name (decline)");
  });

  it("sends tools/list_changed after a plugin file is edited, and serves the new tool", async () => {
    ws = serveWorkspace();
    ({ client } = await connectStdio(ws));
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void changed++);
    expect((await client.listTools()).tools.some((t) => t.name === "shout")).toBe(false);
    ws.write("plugins/talk/plugin.json", {
      ...TALK_PLUGIN,
      virtual_tools: [...TALK_PLUGIN.virtual_tools, { name: "shout", description: "Shouts", response_template: "LOUD" }],
    });
    await waitFor(() => changed > 0);
    expect((await client.listTools()).tools.some((t) => t.name === "shout")).toBe(true);
    expect(text(await client.callTool({ name: "shout", arguments: {} }))).toBe("LOUD");
  });

  it("sends tools/list_changed when an upstream server's tool list changes, and serves its new tool", async () => {
    ws = serveWorkspace();
    ({ client } = await connectStdio(ws));
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void changed++);
    expect((await client.listTools()).tools.some((t) => t.name === "mcp__up__grown")).toBe(false);
    await client.callTool({ name: "mcp__up__grow", arguments: {} });
    await waitFor(() => changed > 0);
    expect((await client.listTools()).tools.some((t) => t.name === "mcp__up__grown")).toBe(true);
    expect(text(await client.callTool({ name: "mcp__up__grown", arguments: {} }))).toBe("grown");
  });

  it("upstream progress reaches the client, and the client's cancellation reaches the upstream tool", async () => {
    ws = serveWorkspace();
    ({ client } = await connectStdio(ws));
    const progress: { progress: number; total?: number; message?: string }[] = [];
    const controller = new AbortController();
    const call = client.callTool({ name: "mcp__up__wait_for_cancel", arguments: {} }, undefined, {
      signal: controller.signal,
      onprogress: (p) => void progress.push(p),
    });
    await waitFor(() => progress.length > 0);
    expect(progress).toEqual([{ progress: 1, total: 2, message: "waiting for cancel" }]);
    expect(ws.exists("started.txt")).toBe(true);
    expect(ws.exists("cancelled.txt")).toBe(false);
    controller.abort();
    await expect(call).rejects.toThrow();
    await waitFor(() => ws!.exists("cancelled.txt"));
    // The call ended as cancelled in keel's log, with the mcp-serve origin.
    const events = await waitFor(() => {
      const all = readEvents(ws!);
      return all.some((e) => e.type === "tool_observation" && e.tool === "mcp__up__wait_for_cancel") ? all : undefined;
    });
    expect(events!.find((e) => e.type === "tool_observation" && e.tool === "mcp__up__wait_for_cancel")).toMatchObject({ code: "cancelled" });
    expect(events!.find((e) => e.type === "tool_intent" && e.tool === "mcp__up__wait_for_cancel")).toMatchObject({ origin: "mcp-serve" });
  });

  it("--tools also bounds what a served workflow_run starts: a prompt step's and a prompt command's model, shell lines and @files get the served tools only", async () => {
    ws = serveWorkspace({
      ".claw-workflows.json": { workflows: [{ name: "think", steps: [{ id: "p", prompt: "Do the thing" }] }] },
      ".claude/commands/shell.md": "---\nallowed-tools: Bash(touch:*)\n---\nRan !`touch ran.txt` for $ARGUMENTS.\n",
      "notes.txt": "secret notes",
      // Each model run (a new session) writes a file: write_file is not served. The prompt step's also runs the command through workflow_run.
      "model.json": {
        turns: [{ toolCalls: [{ name: "write_file", arguments: { path: "pwned.txt", content: "x" } }] }, { text: "done" }],
        byPrompt: {
          "Do the thing": [
            { toolCalls: [{ name: "workflow_run", arguments: { workflow_name: "shell", arguments: { arguments: "x" } } }] },
            { toolCalls: [{ name: "write_file", arguments: { path: "pwned.txt", content: "x" } }] },
            { text: "done" },
          ],
        },
      },
    });
    ws.writeUserConfig({ model: `scripted:${ws.path("model.json")}`, permissions: { allow: ["workflow_run", "write_file", "bash", "read_file"] } });
    ({ client } = await connectStdio(ws, { args: ["--tools", "workflow_run"] }));
    const step = await client.callTool({ name: "workflow_run", arguments: { workflow_name: "think" } });
    expect(text(step)).toMatch(/status=succeeded/);
    expect(ws.exists("ran.txt")).toBe(false);
    expect(ws.exists("pwned.txt")).toBe(false);
    const command = await client.callTool({ name: "workflow_run", arguments: { workflow_name: "shell", arguments: { arguments: "@notes.txt" } } });
    expect(JSON.stringify(observation(command))).toMatch(/output of `touch ran.txt` not included: tool_not_visible/);
    expect(JSON.stringify(observation(command))).not.toContain("secret notes");
    expect(ws.exists("ran.txt")).toBe(false);
    expect(ws.exists("pwned.txt")).toBe(false);
  });

  it("writes nothing but protocol messages to stdout; notices go to stderr", async () => {
    ws = serveWorkspace();
    const lines = [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "say", arguments: { topic: "raw" } } },
    ];
    const child = execa(process.execPath, [KEEL_BIN, "--cwd", ws.root, "--trust", "mcp", "serve"], { env: serveEnv(ws), extendEnv: false, reject: false });
    let out = "";
    child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
    child.stdin!.write(lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    await waitFor(() => out.includes('"id":3'));
    child.stdin!.end();
    const r = await child;
    expect(r.exitCode).toBe(0);
    const messages = out
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { jsonrpc: string; id?: number });
    expect(messages.every((m) => m.jsonrpc === "2.0")).toBe(true);
    expect(messages.map((m) => m.id)).toEqual([1, 2, 3]);
    expect(r.stderr).toMatch(/keel mcp serve: \d+ tools on stdio/);
  });

  it("serves only the tools --tools names, and refuses HTTP-only options without --http (exit 2)", async () => {
    ws = serveWorkspace();
    ({ client } = await connectStdio(ws, { args: ["--tools", "say", "task_*"] }));
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("say");
    expect(names).toContain("task_create");
    expect(names).not.toContain("write_file");
    await expect(client.callTool({ name: "write_file", arguments: { path: "x", content: "y" } })).rejects.toThrow(/Unknown tool/);
  });

  it("--tools also bounds what prompts and resources reach: no shell line, @file or resource read through tools it does not serve", async () => {
    ws = serveWorkspace({
      ".claude/commands/shell.md": "---\nallowed-tools: Bash(touch:*)\n---\nRan !`touch ran.txt` here.\n",
      ".claude/commands/notes.md": "Summarize @notes.txt\n",
      "notes.txt": "secret notes",
    });
    ws.write(".mcp.json", upstreamManifest(ws, { resources: [{ name: "notes", uri: "test://notes", text: "local notes" }] }));
    ({ client } = await connectStdio(ws, { args: ["--tools", "say"] }));
    const shell = (await client.getPrompt({ name: "shell" })).messages[0]!.content as { text: string };
    expect(shell.text).toMatch(/output of `touch ran.txt` not included: tool_not_visible/);
    expect(ws.exists("ran.txt")).toBe(false);
    const file = (await client.getPrompt({ name: "notes" })).messages[0]!.content as { text: string };
    expect(file.text).toMatch(/contents of notes.txt not included: read_file is not among the tools available here/);
    expect(file.text).not.toContain("secret notes");
    // an @path in the client's arguments is text, never a file read
    const arg = (await client.getPrompt({ name: "hello", arguments: { arguments: "@notes.txt" } })).messages[0]!.content as { text: string };
    expect(arg.text).toBe("Hello @notes.txt, from a command.\n");
    expect((await client.listResources()).resources).toEqual([]);
    await expect(client.readResource({ uri: "test://notes" })).rejects.toThrow(/not available in this context/);
    await expect(client.readResource({ uri: "up://readme" })).rejects.toThrow(/not available in this context/);
    // A prompt that reaches no tool still works.
    expect((await client.getPrompt({ name: "hello", arguments: { arguments: "Bob" } })).messages[0]!.content).toMatchObject({
      text: "Hello Bob, from a command.\n",
    });
    const usage = await execa(process.execPath, [KEEL_BIN, "--cwd", ws.root, "mcp", "serve", "--no-auth"], { env: ws.env, reject: false });
    expect(usage.exitCode).toBe(2);
    expect(usage.stderr).toMatch(/apply to the HTTP transport only/);
  });
});
