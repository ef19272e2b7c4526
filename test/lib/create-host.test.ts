import { afterEach, describe, expect, it, vi } from "vitest";
import { callTool, createHost, listTools, runAgent, UsageError, type ApprovalRequest, type Host, type KeelEvent, type ToolCallEnd } from "../../lib/index.js";
import { useOpenAIServer } from "../helpers/openai-server.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";
import { upstreamManifest } from "../runtimes/serve/serve-test-kit.js";

let ws: TempWorkspace | undefined;
let host: Host | undefined;
afterEach(async () => {
  await host?.close();
  ws?.cleanup();
  host = ws = undefined;
});

const server = useOpenAIServer();

describe("createHost: a host opened by a program", () => {
  it("many concurrent calls sharing one signal raise no MaxListeners warning, and aborting it cancels every one", async () => {
    ws = makeWorkspace({ "a.txt": "a\n" });
    host = await createHost({ cwd: ws.root, env: ws.env });
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on("warning", onWarning);
    try {
      const controller = new AbortController();
      const done = await Promise.all(Array.from({ length: 20 }, () => callTool(host!, "read_file", { path: "a.txt" }, { signal: controller.signal })));
      expect(done.every((o) => o.ok)).toBe(true);
      // Twenty calls waiting on the same signal at once (each blocks in `sleep` until aborted).
      const pending = Array.from({ length: 20 }, () => callTool(host!, "bash", { command: "sleep 30" }, { signal: controller.signal, yes: true }));
      setTimeout(() => controller.abort(), 200);
      const cancelled = await Promise.all(pending);
      expect(cancelled.map((o) => o.code)).toEqual(Array(20).fill("cancelled"));
      await new Promise((r) => setImmediate(r));
      expect(warnings).not.toContain("MaxListenersExceededWarning");
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("callTool's elicit answers what an upstream MCP server asks during that call; without it, the policy declines", async () => {
    ws = makeWorkspace({});
    ws.write(".mcp.json", upstreamManifest(ws));
    host = await createHost({ cwd: ws.root, env: ws.env, trust: true });
    const asked: string[] = [];
    const answered = await callTool(
      host,
      "mcp__up__ask_name",
      {},
      {
        elicit: async (request) => {
          asked.push(`${request.server}: ${request.message}`);
          return { action: "accept", content: { name: "Grace" } };
        },
      },
    );
    expect(answered).toMatchObject({ ok: true, content: "Hello Grace" });
    expect(asked).toEqual(["up: What is your name?"]);
    expect(await callTool(host, "mcp__up__ask_name", {})).toMatchObject({ ok: true, content: "no name (decline)" });
  });

  it("an elicit that never answers and ignores its signal: cancelling the call stops keel waiting for it (answered cancel), and close() settles", async () => {
    ws = makeWorkspace({});
    ws.write(".mcp.json", upstreamManifest(ws));
    const events: KeelEvent[] = [];
    let asked!: () => void;
    const askedNow = new Promise<void>((resolve) => (asked = resolve));
    let elicitSignal: AbortSignal | undefined;
    host = await createHost({
      cwd: ws.root,
      env: ws.env,
      trust: true,
      onEvent: (event) => events.push(event),
      elicit: (_request, signal) => {
        elicitSignal = signal;
        asked();
        return new Promise(() => {}); // never settles, never looks at its signal
      },
    });
    const controller = new AbortController();
    const call = callTool(host, "mcp__up__ask_name", {}, { signal: controller.signal });
    await askedNow;
    controller.abort();
    expect(await call).toMatchObject({ ok: false, code: "cancelled" });
    // The server does not cancel its question; keel stops waiting once the call it was asked during has ended.
    await vi.waitFor(() => expect(events.filter((e) => e.type === "mcp_elicitation")).toEqual([expect.objectContaining({ server: "up", action: "cancel" })]), {
      timeout: 30_000,
      interval: 50,
    });
    expect(JSON.stringify(events.find((e) => e.type === "mcp_elicitation"))).toContain("the calls this elicitation was asked during have ended");
    expect(elicitSignal?.aborted).toBe(true);
    await host.close();
  });

  it("applies the program's permissions (deny still beats yes), its approver function and its event callback", async () => {
    ws = makeWorkspace({});
    const events: KeelEvent[] = [];
    const asked: ApprovalRequest[] = [];
    host = await createHost({
      cwd: ws.root,
      env: ws.env,
      permissions: { allow: ["write_file(allowed/**)"], deny: ["bash(rm *)"] },
      approver: (request) => {
        asked.push(request);
        return "no";
      },
      onEvent: (event) => events.push(event),
    });
    const allowed = await callTool(host, "write_file", { path: "allowed/a.txt", content: "a" });
    expect(allowed).toMatchObject({ ok: true, code: "ok" });
    expect(ws.read("allowed/a.txt")).toBe("a");
    expect(asked).toEqual([]);

    const refused = await callTool(host, "write_file", { path: "other.txt", content: "b" });
    expect(refused).toMatchObject({ ok: false, phase: "permission", code: "user_denied" });
    expect(asked).toEqual([expect.objectContaining({ tool: "write_file", resolvedTool: "write_file", input: { path: "other.txt", content: "b" } })]);
    expect(ws.exists("other.txt")).toBe(false);

    const approvedByCall = await callTool(host, "write_file", { path: "other.txt", content: "c" }, { approver: () => "yes" });
    expect(approvedByCall).toMatchObject({ ok: true });
    const denied = await callTool(host, "bash", { command: "rm -rf allowed" }, { yes: true });
    expect(denied).toMatchObject({ ok: false, code: "permission_denied" });
    expect(ws.exists("allowed/a.txt")).toBe(true);

    const observed = events.filter((e) => e.type === "tool_observation").map((e) => (e as { code: string }).code);
    expect(observed).toEqual(["ok", "user_denied", "ok", "permission_denied"]);
    expect(events.find((e) => e.type === "tool_intent")).toMatchObject({ origin: "embed", tool: "write_file" });
  });

  it("applies in-process plugins and lists their tools with the others", async () => {
    ws = makeWorkspace({});
    host = await createHost({
      cwd: ws.root,
      env: ws.env,
      startServers: false,
      plugins: [
        {
          name: "inline",
          apply(h) {
            h.hooks.registerTools.tap("inline", () => {
              h.registry.register({
                name: "inline_hello",
                description: "Says hello",
                inputSchema: { type: "object", properties: {} },
                source: { kind: "plugin", id: "inline" },
                risk: ["read"],
                readOnly: true,
                execute: async () => ({ content: "hello" }),
              });
            });
          },
        },
      ],
    });
    expect(listTools(host).find((t) => t.name === "inline_hello")).toMatchObject({ source: { kind: "plugin", id: "inline" }, blocked: false });
    expect(await callTool(host, "inline_hello", {})).toMatchObject({ ok: true, content: "hello" });
  });
});

describe("runAgent: one agent turn with callbacks", () => {
  it("streams text, reports each tool call with its input and observation, asks the injected approver, and records session events", async () => {
    ws = makeWorkspace({});
    server.push(
      {
        text: "Writing two files.",
        toolCalls: [
          { id: "c1", name: "write_file", arguments: { path: "yes.txt", content: "approved" } },
          { id: "c2", name: "write_file", arguments: { path: "no.txt", content: "refused" } },
        ],
      },
      { text: "One written, one refused." },
    );
    host = await createHost({ cwd: ws.root, env: ws.env, model: { name: "test-model", baseUrl: server.baseUrl } });
    const text: string[] = [];
    const started: string[] = [];
    const ended: ToolCallEnd[] = [];
    const types = new Set<string>();
    const outcome = await runAgent(host, "write the files", {
      approver: (request) => ((request.input as { path: string }).path === "yes.txt" ? "yes" : "no"),
      onText: (delta) => text.push(delta),
      onToolStart: (call) => started.push(`${call.callId}:${call.tool}:${JSON.stringify(call.input)}`),
      onToolEnd: (call) => ended.push(call),
      onEvent: (event) => types.add(event.type),
    });
    expect(outcome).toMatchObject({ ok: true, reason: "answer", text: "One written, one refused." });
    expect(outcome.usage).toMatchObject({ modelCalls: 2, toolCalls: 2 });
    expect(text.join("")).toBe("Writing two files.\nOne written, one refused.");
    expect(started).toEqual(['c1:write_file:{"path":"yes.txt","content":"approved"}', 'c2:write_file:{"path":"no.txt","content":"refused"}']);
    expect(ended.map((c) => [c.callId, c.observation.code])).toEqual([
      ["c1", "ok"],
      ["c2", "user_denied"],
    ]);
    expect(ws.read("yes.txt")).toBe("approved");
    expect(ws.exists("no.txt")).toBe(false);
    for (const type of ["session_start", "model_call", "tool_execute", "tool_observation", "turn_end"]) expect(types, type).toContain(type);
    expect(server.requests.at(-1)?.model).toBe("test-model");
    expect(ws.exists(`.keel/sessions/${outcome.sessionId}/events.jsonl`)).toBe(true);
  });

  it("uses the host's yes when the turn names none, ignores callbacks that throw, and forwards a caller's own event sink to onEvent", async () => {
    ws = makeWorkspace({});
    server.push({ toolCalls: [{ id: "w1", name: "write_file", arguments: { path: "by-host-yes.txt", content: "x" } }] }, { text: "done" });
    const recorded: string[] = [];
    const seen: string[] = [];
    host = await createHost({
      cwd: ws.root,
      env: ws.env,
      yes: true,
      model: { name: "m", baseUrl: server.baseUrl },
      events: { emit: (e) => recorded.push(e.type), flush: () => {} },
      onEvent: (e) => seen.push(e.type),
    });
    const thrower = () => {
      throw new Error("a broken callback");
    };
    // callbacks only watch: ones that throw change nothing
    const outcome = await runAgent(host, "write it", { onText: thrower, onToolStart: thrower, onToolEnd: thrower, onEvent: thrower });
    expect(outcome.reason).toBe("answer");
    expect(ws.read("by-host-yes.txt")).toBe("x");
    await callTool(host, "read_file", { path: "by-host-yes.txt" });
    expect(recorded).toContain("tool_observation");
    expect(seen).toEqual(expect.arrayContaining(recorded));
    expect(seen).toContain("session_start");
  });

  it("a listener of a caller's own sink cannot change what the sink records, not even a nested object", async () => {
    ws = makeWorkspace({ "a.txt": "a\n" });
    const recorded: KeelEvent[] = [];
    /** Adds `forged` to every object and list the event holds that it can change. */
    const forge = (value: unknown): void => {
      if (value === null || typeof value !== "object") return;
      for (const child of Object.values(value)) forge(child);
      if (Object.isFrozen(value)) return;
      if (Array.isArray(value)) value.push("forged");
      else (value as Record<string, unknown>).forged = true;
    };
    host = await createHost({ cwd: ws.root, env: ws.env, events: { emit: (e) => recorded.push(e as KeelEvent), flush: () => {} }, onEvent: forge });
    expect((await callTool(host, "read_file", { path: "a.txt" })).ok).toBe(true);
    // an input the schema refuses: its event lists the problems
    expect((await callTool(host, "read_file", { path: 3 })).code).toBe("schema_invalid");
    expect(recorded.find((e) => e.type === "tool_validate")).toMatchObject({ problems: [expect.any(String)] });
    expect(JSON.stringify(recorded)).not.toContain("forged");
  });

  it("without a model, refuses with a UsageError that says what the program can pass (not keel run's flags)", async () => {
    ws = makeWorkspace({});
    host = await createHost({ cwd: ws.root, env: { ...ws.env, OPENAI_BASE_URL: "" } });
    await expect(runAgent(host, "hello")).rejects.toBeInstanceOf(UsageError);
    const error = (await runAgent(host, "hello").catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/^runAgent: no model is configured\. Pass `model` to createHost/);
    expect(error.message).not.toMatch(/keel run|--model/);
  });
});
