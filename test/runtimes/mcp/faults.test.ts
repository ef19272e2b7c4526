import { cpuUsage } from "node:process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { MemoryEventSink } from "../../../core/events.js";
import type { McpManager } from "../../../runtimes/mcp/mcp-manager.js";
import { openTestHost } from "../../helpers/test-host.js";
import type { TempWorkspace } from "../../helpers/temp-workspace.js";
import { alive, FAULT, mcpWorkspace, nodeServer, waitFor } from "./mcp-test-kit.js";

const fault = (mode: string, extra: Record<string, unknown> = {}) => nodeServer(FAULT, [mode], { startupTimeoutMs: 1500, ...extra });

describe("fault servers", () => {
  let ws: TempWorkspace;
  let host: Host;
  let manager: McpManager;
  const events = new MemoryEventSink();
  let startMs = 0;
  let cpuDuringStart = 0;
  beforeAll(async () => {
    ws = mcpWorkspace({
      exits: fault("exit-at-start"),
      hangs: fault("hang-initialize"),
      crashes: fault("crash-mid-call"),
      combined: fault("combined-write"),
      flood: fault("flood-stderr"),
      garbage: fault("invalid-json"),
      ok: fault("ok"),
      slow: fault("ok", { toolTimeoutMs: 300 }),
      asker: fault("ok", { disabledTools: ["crash", "add_*"] }),
      missing: { command: "keel-no-such-command-xyz", startupTimeoutMs: 1500 },
    });
    const t0 = performance.now();
    const c0 = cpuUsage();
    host = await openTestHost(ws, { trust: true, yes: true, events });
    const c1 = cpuUsage(c0);
    cpuDuringStart = (c1.user + c1.system) / 1000;
    startMs = performance.now() - t0;
    manager = host.service<McpManager>("mcp")!;
  });
  afterAll(async () => {
    await host?.close();
    ws?.cleanup();
  });
  const state = (name: string) => manager.find(name)!;

  it("starts in parallel: a hanging server costs its own timeout only, and the CPU idles while waiting", () => {
    expect(startMs).toBeLessThan(1500 + 2500);
    expect(state("ok").state).toBe("connected");
    // CPU time while waiting ~1.5 s for the hanging server: far below the wall time (no busy loop).
    expect(cpuDuringStart).toBeLessThan(startMs * 0.8);
  });

  it("a server that exits at start is failed with its stderr", () => {
    const c = state("exits");
    expect(c.state).toBe("failed");
    expect(c.lastError).toMatch(/exited|closed/i);
    expect(c.stderr.tail()).toContain("FAULT_TOKEN is not set");
  });

  it("a server that hangs in initialize fails at its start-up timeout and is killed", async () => {
    const c = state("hangs");
    expect(c.state).toBe("failed");
    expect(c.lastError).toMatch(/1500 ms/);
    expect(c.pid).toBeGreaterThan(0);
    await waitFor(() => !alive(c.pid!), 3000);
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
    const obs = await host.runTool({ tool: "mcp__ok__fail" });
    expect(obs).toMatchObject({ ok: false, code: "execution_failed", content: "something broke" });
  });

  it("tools/list_changed re-lists, updates the registry and fires toolsChanged", async () => {
    const changes: { added: string[] }[] = [];
    host.hooks.toolsChanged.tap("test", (c) => void changes.push(c));
    await host.runTool({ tool: "mcp__ok__add_tool" });
    await waitFor(() => host.registry.get("mcp__ok__added"));
    expect(changes.some((c) => c.added.includes("mcp__ok__added"))).toBe(true);
  });

  it("cancellation sends notifications/cancelled", async () => {
    const ac = new AbortController();
    const p = host.runTool({ tool: "mcp__ok__sleep" }, { signal: ac.signal });
    setTimeout(() => ac.abort(), 100);
    expect((await p).code).toBe("cancelled");
    const seen = await waitFor(async () => {
      const r = await host.runTool({ tool: "mcp__ok__was_cancelled" });
      return JSON.parse(r.content).length > 0 ? r : undefined;
    });
    expect(JSON.parse(seen.content).length).toBe(1);
  });

  it("a call past the server's toolTimeoutMs ends with code timeout", async () => {
    const t0 = performance.now();
    const obs = await host.runTool({ tool: "mcp__slow__sleep" });
    expect(obs.code).toBe("timeout");
    expect(performance.now() - t0).toBeLessThan(1500);
  });

  it("enabledTools / disabledTools globs filter the registered tools", () => {
    expect(host.registry.get("mcp__asker__echo")).toBeDefined();
    expect(host.registry.get("mcp__asker__crash")).toBeUndefined();
    expect(host.registry.get("mcp__asker__add_tool")).toBeUndefined();
  });

  it("elicitation requests are declined by default (non-interactive)", async () => {
    const obs = await host.runTool({ tool: "mcp__asker__ask" });
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
    const t0 = performance.now();
    const obs = await host.runTool({ tool: "mcp__crashes__crash" });
    expect(performance.now() - t0).toBeLessThan(1000);
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
    await host.runTool({ tool: "mcp__crashes__crash" });
    await waitFor(() => state("crashes").state === "failed");
    await host.runTool({ tool: "mcp__crashes__echo", input: { message: "x" } });
    await host.runTool({ tool: "mcp__crashes__crash" });
    await waitFor(() => state("crashes").state === "failed" && /switched off/.test(state("crashes").lastError ?? ""));
    const t0 = performance.now();
    const blocked = await host.runTool({ tool: "mcp__crashes__echo", input: { message: "x" } });
    expect(performance.now() - t0).toBeLessThan(500);
    expect(blocked.ok).toBe(false);
    expect(blocked.content).toMatch(/keel mcp restart crashes/);
    await manager.restart(state("crashes"));
    expect((await host.runTool({ tool: "mcp__crashes__echo", input: { message: "ok" } })).content).toBe("echo: ok");
  });

  it("host.close stops every child", async () => {
    const pids = manager.connections.map((c) => c.pid).filter((p): p is number => Boolean(p) && alive(p!));
    expect(pids.length).toBeGreaterThan(2);
    await host.close();
    await waitFor(() => pids.every((p) => !alive(p)), 5000);
  });
});
