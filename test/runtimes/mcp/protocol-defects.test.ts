import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinTools, Host } from "../../../core/index.js";
import { MemoryEventSink } from "../../../core/events.js";
import type { PromptContext } from "../../../core/hooks.js";
import { mcpRuntime } from "../../../runtimes/mcp/index.js";
import type { Elicitor } from "../../../runtimes/mcp/elicitation.js";
import { runKeel } from "../../helpers/run-cli.js";
import type { TempWorkspace } from "../../helpers/temp-workspace.js";
import { mcpWorkspace, nodeServer, waitFor } from "./mcp-test-kit.js";

const PROTOCOL = fileURLToPath(new URL("./fixtures/protocol-server.mjs", import.meta.url));

/** A host with the built-in tools and the MCP runtime only, answering elicitations with `elicit`. */
async function openHost(ws: TempWorkspace, events: MemoryEventSink, elicit?: Elicitor): Promise<Host> {
  const host = await Host.create({ cwd: ws.root, env: ws.env, trust: true, yes: true, events });
  await host.use(builtinTools(), mcpRuntime({ elicit }));
  await host.init();
  return host;
}

describe("MCP protocol corners (fixture server written with the SDK)", () => {
  let ws: TempWorkspace;
  let host: Host;
  const events = new MemoryEventSink();
  // A scripted "user": the first answer breaks the form (age -1), the second is valid; it waits
  // 1,500 ms per answer, longer than the tool's 1,000 ms timeout would allow if the wait counted (the
  // timeout leaves a loaded machine room for the round trips to the server that are keel's own time).
  const answers = [{ age: -1 }, { age: 42 }];
  const asked: string[] = [];
  const user: Elicitor = Object.assign(
    async (req: { message: string }) => {
      asked.push(req.message);
      await new Promise((r) => setTimeout(r, 1500));
      return { action: "accept" as const, content: answers.shift() ?? { age: 1 } };
    },
    { waitsForUser: true },
  );
  const run = (tool: string, input: unknown = {}) => host.runTool({ tool, input });

  beforeAll(async () => {
    ws = mcpWorkspace({ p: nodeServer(PROTOCOL) });
    host = await openHost(ws, events, user);
  });
  afterAll(async () => {
    await host?.close();
    ws?.cleanup();
  });

  it("reads a tool schema without $schema as 2020-12 (prefixItems with items: false)", async () => {
    expect((await run("mcp__p__tuple", { pair: ["a", 1] })).content).toBe('pair ["a",1]');
    const bad = await run("mcp__p__tuple", { pair: ["a", 1, 2] });
    expect(bad).toMatchObject({ ok: false, code: "schema_invalid", phase: "validate" });
  });

  it("validates structuredContent against the output schema of tools on every page", async () => {
    for (const tool of ["mcp__p__structured1", "mcp__p__structured2"]) {
      expect(await run(tool)).toMatchObject({ ok: true, data: { n: 7 } });
      const bad = await run(tool, { bad: true });
      expect(bad).toMatchObject({ ok: false, code: "execution_failed" });
      expect(bad.content).toMatch(/does not match its output schema.*`n` must be number/);
    }
  });

  it("a result with structuredContent and no content blocks reaches the model as its JSON text (the spec only says SHOULD for the text copy)", async () => {
    expect(await run("mcp__p__structonly")).toMatchObject({ ok: true, content: '{"n":3}', data: { n: 3 } });
  });

  it("a tool with an invalid input schema is registered without validation; the server and its other tools work", async () => {
    expect(host.service("mcp")!.find("p")!.state).toBe("connected");
    const d = host.diagnostics.items.find((i) => i.message.includes('tool "broken"'));
    expect(d?.message).toMatch(/MCP server "p" is invalid \(.*required.*\); mcp__p__broken stays callable without input validation/);
    expect((await run("mcp__p__broken", { anything: 1 })).content).toBe('broken got {"anything":1}');
    // A tool the SDK rejects for its output schema keeps its input validation.
    expect(host.registry.get("mcp__p__arrayout")!.validateInput).not.toBe(false);
    expect(await run("mcp__p__arrayout", { x: 1 })).toMatchObject({ ok: false, code: "schema_invalid" });
  });

  it("a tool whose output schema cannot be compiled works unchecked, with a diagnostic", async () => {
    expect(await run("mcp__p__badout")).toMatchObject({ ok: true, content: "badout ok" });
    expect(host.diagnostics.items.some((i) => /Output schema of tool "badout" from MCP server "p" could not be compiled/.test(i.message))).toBe(true);
  });

  it("tools that require task support are not offered, with a diagnostic", async () => {
    expect(host.registry.has("mcp__p__taskonly")).toBe(false);
    expect(host.diagnostics.items.some((i) => /"taskonly".*taskSupport: "required".*not offered/.test(i.message))).toBe(true);
    const viaGeneric = await run("mcp_call_tool", { tool_name: "taskonly", server: "p" });
    expect(viaGeneric).toMatchObject({ ok: false, code: "precondition_failed" });
    expect(viaGeneric.content).toMatch(/can only run as a task/);
  });

  it("ajv warnings (unknown format) go to diagnostics", async () => {
    expect((await run("mcp__p__formatted", { body: "{}" })).content).toBe("formatted ok");
    expect(host.diagnostics.items.some((i) => i.source === "validation" && /unknown format "json"/.test(i.message))).toBe(true);
  });

  it("mcp_get_prompt finds a prompt on page 2 of prompts/list", async () => {
    const obs = await run("mcp_get_prompt", { name: "second" });
    expect(obs).toMatchObject({ ok: true, content: "user: prompt second" });
  });

  it("mcp_list_resources lists resource templates", async () => {
    const obs = await run("mcp_list_resources", { server: "p" });
    expect(obs.content).toContain("p: template mem://items/{id} (item)");
    expect(obs.data).toMatchObject({ resourceTemplates: [{ server: "p", uriTemplate: "mem://items/{id}", name: "item" }] });
  });

  it("server instructions reach the system prompt, labelled by server and as untrusted", async () => {
    const ctx: PromptContext = { host, system: "BASE", guidance: [], resume: false };
    const out = await host.hooks.beforePrompt.promise(ctx);
    expect(out.system).toMatch(/^BASE\n\n# MCP server instructions \(untrusted\)/);
    expect(out.system).toContain('<mcp-server-instructions server="p">\nPrefer the tuple tool for pairs.\n</mcp-server-instructions>');
  });

  it("a burst of tools/list_changed causes one re-list, not five", async () => {
    const before = JSON.parse((await run("mcp__p__stats")).content).listCalls as number;
    const changed = () => events.events.filter((e) => e.type === "mcp_tools_changed").length;
    const seen = changed();
    await run("mcp__p__burst");
    await waitFor(() => changed() > seen);
    // Give stragglers a chance to trigger more re-lists before counting.
    await new Promise((r) => setTimeout(r, 200));
    const after = JSON.parse((await run("mcp__p__stats")).content).listCalls as number;
    // Each re-list reads two pages.
    expect((after - before) / 2).toBeLessThanOrEqual(2);
    expect(after - before).toBeGreaterThanOrEqual(2);
  });

  it("an error answer carries one MCP error prefix and no unrelated stderr", async () => {
    const obs = await run("mcp__p__invalid");
    expect(obs).toMatchObject({ ok: false, code: "execution_failed" });
    expect(obs.content).toBe('MCP server "p" returned an error: the id is unknown (MCP error -32602)');
    expect(obs.content).not.toContain("cache warmed");
  });

  it("elicitation: an answer that breaks the form is asked again, and the wait does not count against the timeout", async () => {
    const tool = host.registry.get("mcp__p__ask")!;
    tool.timeoutMs = 1000;
    const obs = await run("mcp__p__ask");
    expect(obs).toMatchObject({ ok: true });
    expect(JSON.parse(obs.content)).toEqual({ action: "accept", content: { age: 42 } });
    expect(asked).toHaveLength(2);
    expect(asked[1]).toMatch(/The last answer was not accepted: `age` must be >= 0/);
  });

  it("URL-mode elicitation is refused with a message (keel does not advertise it)", async () => {
    const obs = await run("mcp__p__ask_url");
    expect(obs.content).toMatch(/refused: .*URL-mode/);
  });
});

describe("elicitation answers that do not match the form, without a user to ask again", () => {
  it("are declined, with the reason in the event", async () => {
    const ws = mcpWorkspace({ p: nodeServer(PROTOCOL) });
    const events = new MemoryEventSink();
    const host = await openHost(ws, events, async () => ({ action: "accept", content: { age: "old" } }));
    try {
      const obs = await host.runTool({ tool: "mcp__p__ask", input: {} });
      expect(JSON.parse(obs.content)).toEqual({ action: "decline" });
      const e = events.events.find((x) => x.type === "mcp_elicitation");
      expect(e).toMatchObject({ action: "decline", reason: expect.stringMatching(/does not match the requested form: `age` must be integer/) });
    } finally {
      await host.close();
      ws.cleanup();
    }
  });
});

describe("a hostile server's structuredContent nested 20,000 levels (beyond what JSON.stringify can print)", () => {
  it("keel call --json prints the observation with the data left out and a note, instead of failing to print", async () => {
    const ws = mcpWorkspace({ p: nodeServer(PROTOCOL) });
    try {
      for (const [input, content] of [
        ["{}", "[the server's structuredContent nests deeper than 256 levels; it was left out]"],
        ['{"text":true}', "deep text"],
      ]) {
        const r = await runKeel(["--json", "--trust", "--yes", "call", "mcp__p__deep", "--input", input], { cwd: ws.root, env: ws.env });
        expect(r.exitCode, r.stderr).toBe(0);
        const obs = r.json();
        expect(obs).toMatchObject({
          ok: true,
          code: "ok",
          content,
          data: null,
          metadata: { structured_content_omitted: expect.stringContaining("256 levels") },
        });
      }
    } finally {
      ws.cleanup();
    }
  });
});

describe("keel context", () => {
  it("shows the servers' instructions in the system prompt (trusted workspace only)", async () => {
    const ws = mcpWorkspace({ p: nodeServer(PROTOCOL, [], { env: { KEEL_INSTRUCTIONS: "Use p carefully." } }) });
    try {
      const untrusted = await runKeel(["--json", "context"], { cwd: ws.root, env: ws.env });
      expect(untrusted.json().system.text).not.toContain("Use p carefully.");
      const trusted = await runKeel(["--json", "--trust", "context"], { cwd: ws.root, env: ws.env });
      expect(trusted.exitCode).toBe(0);
      expect(trusted.json().system.text).toContain('<mcp-server-instructions server="p">\nUse p carefully.\n</mcp-server-instructions>');
    } finally {
      ws.cleanup();
    }
  });
});
