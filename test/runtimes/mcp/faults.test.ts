import { getEventListeners } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { MemoryEventSink } from "../../../core/events.js";
import type { McpManager } from "../../../runtimes/mcp/mcp-manager.js";
import { openTestHost } from "../../helpers/test-host.js";
import type { TempWorkspace } from "../../helpers/temp-workspace.js";
import { alive, FAULT, mcpWorkspace, nodeServer, waitFor } from "./mcp-test-kit.js";

/** A fault server; start-up gets a generous safety net (a loaded machine starts node slowly), except where the timeout is the subject. */
const fault = (mode: string, extra: Record<string, unknown> = {}) => nodeServer(FAULT, [mode], { startupTimeoutMs: 60_000, ...extra });

describe("fault servers", () => {
  let ws: TempWorkspace;
  let host: Host;
  let manager: McpManager;
  const events = new MemoryEventSink();
  beforeAll(async () => {
    ws = mcpWorkspace({
      exits: fault("exit-at-start"),
      hangs: fault("hang-initialize", { startupTimeoutMs: 1500 }),
      // Each answers initialize only after the other has started: both connect only if keel starts servers concurrently.
      left: fault("rendezvous", { env: { KEEL_RENDEZVOUS_SELF: "${KEEL_TEST_DIR}/left.up", KEEL_RENDEZVOUS_PEER: "${KEEL_TEST_DIR}/right.up" } }),
      right: fault("rendezvous", { env: { KEEL_RENDEZVOUS_SELF: "${KEEL_TEST_DIR}/right.up", KEEL_RENDEZVOUS_PEER: "${KEEL_TEST_DIR}/left.up" } }),
      crashes: fault("crash-mid-call", { env: { KEEL_MARK_FILE: "${KEEL_TEST_DIR}/crashes.marks" } }),
      combined: fault("combined-write"),
      flood: fault("flood-stderr"),
      garbage: fault("invalid-json"),
      ok: fault("ok", { env: { KEEL_SLEEP_FILE: "${KEEL_TEST_DIR}/sleeping" } }),
      slow: fault("ok", { toolTimeoutMs: 300, env: { KEEL_CANCELLED_FILE: "${KEEL_TEST_DIR}/slow.cancelled" } }),
      // "No limit" written as a huge number: Node fires a timer past 2^31-1 ms after 1 ms, unless keel caps it.
      patient: fault("ok", { toolTimeoutMs: 1e10, startupTimeoutMs: 1e10 }),
      asker: fault("ok", { disabledTools: ["crash", "add_*"] }),
      missing: { command: "keel-no-such-command-xyz" },
    });
    host = await openTestHost(ws, { trust: true, yes: true, events, env: { ...ws.env, KEEL_TEST_DIR: ws.root } });
    manager = host.service("mcp")!;
  });
  afterAll(async () => {
    await host?.close();
    ws?.cleanup();
  });
  const state = (name: string) => manager.find(name)!;

  it("starts servers concurrently: two servers that each wait for the other to start both connect; a hanging one fails alone", () => {
    // Started one after the other, the first of the pair would wait forever for its peer.
    expect(state("left").state).toBe("connected");
    expect(state("right").state).toBe("connected");
    expect(state("ok").state).toBe("connected");
    expect(state("hangs").state).toBe("failed");
  });

  it("a server that exits at start is failed with its stderr", () => {
    const c = state("exits");
    expect(c.state).toBe("failed");
    expect(c.lastError).toMatch(/exited|closed/i);
    expect(c.stderr.tail()).toContain("FAULT_TOKEN is not set");
  });

  it("calling a tool of a server that failed to start says which server, why, and what to run", async () => {
    const obs = await host.runTool({ tool: "mcp__exits__anything", input: {} });
    expect(obs).toMatchObject({ ok: false, code: "unknown_tool" });
    expect(obs.content).toMatch(
      /^Unknown tool "mcp__exits__anything": MCP server "exits" did not start \(.*(exited|closed).*\): run `keel mcp doctor exits`\.$/is,
    );
    // A name of no configured server keeps the plain message with suggestions.
    expect((await host.runTool({ tool: "mcp__nosuch__x", input: {} })).content).not.toContain("did not start");
  });

  it("a server that hangs in initialize fails at its start-up timeout and is killed", async () => {
    const c = state("hangs");
    expect(c.state).toBe("failed");
    expect(c.lastError).toMatch(/1500 ms/);
    expect(c.pid).toBeGreaterThan(0);
    await waitFor(() => !alive(c.pid!), 30_000);
  });

  it("a missing command is reported as command not found", () => {
    expect(state("missing").lastError).toMatch(/command not found/);
  });

  it("a notification and the response in one write are both handled", async () => {
    const obs = await host.runTool({ tool: "mcp__combined__echo", input: { message: "together" } });
    expect(obs.content).toBe("echo: together");
    expect(events.events.some((e) => e.type === "mcp_log" && e.server === "combined" && String(e.data).includes("tools/call"))).toBe(true);
  });

  it("a server that floods stderr keeps working; stderr stays bounded", async () => {
    const obs = await host.runTool({ tool: "mcp__flood__echo", input: { message: "x" } });
    expect(obs.content).toBe("echo: x");
    const c = state("flood");
    await waitFor(() => c.stderr.total > 100_000);
    expect(c.stderr.tail(1000).length).toBeLessThanOrEqual(16 * 1024);
  });

  it("invalid JSON lines are skipped and counted; valid responses still arrive", async () => {
    const obs = await host.runTool({ tool: "mcp__garbage__echo", input: { message: "y" } });
    expect(obs.content).toBe("echo: y");
    expect(state("garbage").protocolErrors).toBeGreaterThan(0);
  });

  it("paginated tools/list is followed to the end", () => {
    expect(state("ok").tools.map((t) => t.name)).toEqual(expect.arrayContaining(["echo", "bad_schema"]));
    expect(host.registry.get("mcp__ok__bad_schema")).toBeDefined();
  });

  it("an uncompilable schema gives a diagnostic and the tool stays callable", async () => {
    expect(host.registry.get("mcp__ok__bad_schema")!.validateInput).toBe(false);
    expect(host.diagnostics.items.some((d) => d.source === "mcp" && /bad_schema/.test(d.message))).toBe(true);
    const obs = await host.runTool({ tool: "mcp__ok__bad_schema", input: { x: 1 } });
    expect(obs.phase).toBe("execute");
  });

  it("isError becomes ok:false execution_failed with the server's text", async () => {
    const obs = await host.runTool({ tool: "mcp__ok__fail", input: {} });
    expect(obs).toMatchObject({ ok: false, code: "execution_failed", content: "something broke" });
  });

  it("tools/list_changed re-lists, updates the registry and fires toolsChanged", async () => {
    const changes: { added: string[] }[] = [];
    host.hooks.toolsChanged.tap("test", (c) => void changes.push(c));
    await host.runTool({ tool: "mcp__ok__add_tool", input: {} });
    await waitFor(() => host.registry.get("mcp__ok__added"));
    expect(changes.some((c) => c.added.includes("mcp__ok__added"))).toBe(true);
  });

  it("re-listing a server's tools does not repeat their diagnostics (a list_changed loop cannot grow them)", async () => {
    const about = () => host.diagnostics.items.filter((d) => d.message.includes('"bad_schema" from MCP server "ok"')).length;
    expect(about()).toBe(1);
    const relists = () => events.events.filter((e) => e.type === "mcp_tools_changed" && e.server === "ok").length;
    for (let i = 0; i < 3; i++) {
      const before = relists();
      await host.runTool({ tool: "mcp__ok__add_tool", input: {} });
      await waitFor(() => relists() > before);
    }
    expect(about()).toBe(1);
  });

  it("cancellation sends notifications/cancelled", async () => {
    const ac = new AbortController();
    const p = host.runTool({ tool: "mcp__ok__sleep", input: {} }, { signal: ac.signal });
    await waitFor(() => ws.exists("sleeping")); // the server has the call
    ac.abort();
    expect((await p).code).toBe("cancelled");
    const seen = await waitFor(async () => {
      const r = await host.runTool({ tool: "mcp__ok__was_cancelled", input: {} });
      return JSON.parse(r.content).length > 0 ? r : undefined;
    });
    expect(JSON.parse(seen!.content).length).toBe(1);
  });

  it("calls sharing one caller signal leave no listener on it (the SDK gets a signal of the call's own)", async () => {
    // The MCP SDK never removes the abort listener it adds to a request's signal: handed the
    // caller's long-lived signal, every call would leave one behind.
    const ac = new AbortController();
    const calls = Array.from({ length: 12 }, (_, i) => host.runTool({ tool: "mcp__asker__echo", input: { message: `m${i}` } }, { signal: ac.signal }));
    expect(getEventListeners(ac.signal, "abort").length).toBeGreaterThan(0); // the calls listen while they run
    const done = await Promise.all(calls);
    expect(done.map((o) => o.content)).toEqual(Array.from({ length: 12 }, (_, i) => `echo: m${i}`));
    expect(getEventListeners(ac.signal, "abort")).toHaveLength(0);
  });

  it("a call past the server's toolTimeoutMs ends with code timeout, and the server is told to cancel it", async () => {
    const obs = await host.runTool({ tool: "mcp__slow__sleep", input: {} });
    expect(obs).toMatchObject({ ok: false, phase: "execute", code: "timeout" });
    // The pipeline's deadline reaches the request through ToolContext.onStop (no per-call signal). Read from the server's
    // file, not with a call of its was_cancelled tool: that call has the same 300 ms limit, which a loaded machine can pass
    // (a timeout, not JSON; and one more cancelled request).
    const cancelled = () => (ws.exists("slow.cancelled") ? ws.read("slow.cancelled").split("\n").slice(0, -1) : []);
    const seen = await waitFor(() => (cancelled().length > 0 ? cancelled() : undefined));
    expect(seen).toHaveLength(1); // the SDK's own backup timer is cleared by it (request-cancel.test.ts, with fake timers)
  });

  it("a huge toolTimeoutMs / startupTimeoutMs (meant as no limit) neither fails the start nor times calls out at once", async () => {
    expect(state("patient").state).toBe("connected");
    const obs = await host.runTool({ tool: "mcp__patient__echo", input: { message: "still here" } });
    expect(obs).toMatchObject({ ok: true, content: "echo: still here" });
  });

  it("enabledTools / disabledTools globs filter the registered tools", () => {
    expect(host.registry.get("mcp__asker__echo")).toBeDefined();
    expect(host.registry.get("mcp__asker__crash")).toBeUndefined();
    expect(host.registry.get("mcp__asker__add_tool")).toBeUndefined();
  });

  it("elicitation requests are declined by default (non-interactive)", async () => {
    const obs = await host.runTool({ tool: "mcp__asker__ask", input: {} });
    expect(JSON.parse(obs.content)).toMatchObject({ action: "decline" });
  });

  it("mcp_call_tool asks for `server` when a tool name is on several servers", async () => {
    const obs = await host.runTool({ tool: "mcp_call_tool", input: { tool_name: "echo", arguments: { message: "a" } } });
    expect(obs).toMatchObject({ ok: false, code: "precondition_failed" });
    expect(obs.content).toMatch(/pass `server`/);
    expect((await host.runTool({ tool: "mcp_call_tool", input: { tool_name: "echo", server: "Asker", arguments: { message: "a" } } })).content).toBe("echo: a");
  });

  it("a crash in the middle of a call fails promptly with the server name and stderr tail, then restarts", async () => {
    const pid = state("crashes").pid!;
    const obs = await host.runTool({ tool: "mcp__crashes__crash", input: {} });
    // Not a timeout: the call ends when the server exits, not when a timer runs out.
    expect(obs).toMatchObject({ ok: false, code: "execution_failed" });
    expect(obs.content).toMatch(/crashes/);
    expect(obs.content).toContain("panic: crashing on purpose");
    expect(alive(pid)).toBe(false);
    await waitFor(() => state("crashes").state === "failed");
    const again = await host.runTool({ tool: "mcp__crashes__echo", input: { message: "back" } });
    expect(again.content).toBe("echo: back");
    expect(state("crashes").pid).not.toBe(pid);
  });

  it("three crashes within 60 s open the breaker until restart", async () => {
    await host.runTool({ tool: "mcp__crashes__crash", input: {} });
    await waitFor(() => state("crashes").state === "failed");
    await host.runTool({ tool: "mcp__crashes__echo", input: { message: "x" } });
    await host.runTool({ tool: "mcp__crashes__crash", input: {} });
    await waitFor(() => state("crashes").state === "failed" && /switched off/.test(state("crashes").lastError ?? ""));
    const starts = ws.read("crashes.marks").trim().split("\n").length;
    const blocked = await host.runTool({ tool: "mcp__crashes__echo", input: { message: "x" } });
    expect(blocked.ok).toBe(false);
    // The open breaker answers without starting the server again.
    expect(ws.read("crashes.marks").trim().split("\n").length).toBe(starts);
    expect(blocked.content).toMatch(/keel mcp restart crashes/);
    await manager.restart(state("crashes"));
    expect((await host.runTool({ tool: "mcp__crashes__echo", input: { message: "ok" } })).content).toBe("echo: ok");
  });

  it("host.close stops every child", async () => {
    const pids = manager.connections.map((c) => c.pid).filter((p): p is number => Boolean(p) && alive(p!));
    expect(pids.length).toBeGreaterThan(2);
    await host.close();
    await waitFor(() => pids.every((p) => !alive(p)), 30_000);
  });
});
