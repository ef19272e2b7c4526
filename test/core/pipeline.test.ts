import { describe, expect, it, vi } from "vitest";
import { PassThrough } from "node:stream";
import { ttyApprover } from "../../core/cli/tty-approver.js";
import { readEvents } from "../../core/events.js";
import type { Host, KeelPlugin } from "../../core/host.js";
import type { ToolDefinition } from "../../core/types.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";
import { closeAfterEach, openTestHost } from "../helpers/test-host.js";
import { eventsOfCall } from "../helpers/events.js";

let ws: TempWorkspace;
let host: Host | undefined;
closeAfterEach(() => ({ host, ws }));

/** A tool that waits `ms` (or forever) unless its signal aborts; `honour: false` ignores the signal. */
function slowTool(name: string, opts: { timeoutMs?: number; honour?: boolean } = {}): ToolDefinition {
  return {
    name,
    description: "waits",
    inputSchema: { type: "object", properties: { ms: { type: "integer" } } },
    source: { kind: "runtime", id: "test" },
    risk: ["read"],
    readOnly: true,
    timeoutMs: opts.timeoutMs,
    execute: (input: { ms?: number }, ctx) =>
      new Promise((resolve, reject) => {
        // Default: far beyond the test's own timeout, so only a timeout or an abort can end the call.
        const t = setTimeout(() => resolve({ content: "finished" }), input.ms ?? 600_000);
        t.unref();
        if (opts.honour !== false)
          ctx.signal.addEventListener("abort", () => {
            clearTimeout(t);
            reject(ctx.signal.reason);
          });
      }),
  };
}

function plugin(name: string, apply: (host: Host) => void): KeelPlugin {
  return { name, apply };
}

describe("runToolIntent: hook failures fail closed", () => {
  it("a beforeTool tap that throws blocks the call, names the tap, and the host keeps working", async () => {
    ws = makeWorkspace();
    host = await openTestHost(ws, { yes: true });
    await host.use(
      plugin("exploding-guard", (h) =>
        h.hooks.beforeTool.tapPromise("exploding-guard", async ({ calledAs }) => {
          if (calledAs === "write_file") throw new Error("guard database unreachable");
          return undefined;
        }),
      ),
    );
    const obs = await host.runTool({ tool: "write_file", input: { path: "x.txt", content: "data" } });
    expect(obs).toMatchObject({ ok: false, phase: "hook", code: "tool_blocked", metadata: { hook_error: true, hook_tap: "exploding-guard" } });
    expect(obs.content).toContain('"exploding-guard"');
    expect(obs.content).toContain("guard database unreachable");
    expect(ws.exists("x.txt")).toBe(false);
    host.events.flush(); // a call's last events are committed within a few ms: read them now
    const events = eventsOfCall(readEvents(ws.path(".keel", "events.jsonl")), String(obs.metadata.callId));
    expect(events.find((e) => e.type === "hook_error")).toMatchObject({ hook: "beforeTool", tap: "exploding-guard" });
    expect(events.map((e) => e.type)).not.toContain("tool_execute");
    // other tools still run
    const ok = await host.runTool({ tool: "list_dir", input: {} });
    expect(ok.ok).toBe(true);
  });

  it("a sync beforeTool tap that throws is caught the same way", async () => {
    ws = makeWorkspace({ "a.txt": "a" });
    host = await openTestHost(ws);
    await host.use(
      plugin("sync-guard", (h) =>
        h.hooks.beforeTool.tap("sync-guard", () => {
          throw new TypeError("boom");
        }),
      ),
    );
    const obs = await host.runTool({ tool: "read_file", input: { path: "a.txt" } });
    expect(obs).toMatchObject({ ok: false, phase: "hook", code: "tool_blocked", metadata: { hook_tap: "sync-guard" } });
  });

  it("an afterResult tap that throws withholds the result", async () => {
    ws = makeWorkspace({ "a.txt": "secret" });
    host = await openTestHost(ws);
    await host.use(
      plugin("bad-filter", (h) =>
        h.hooks.afterResult.tapPromise("bad-filter", async () => {
          throw new Error("filter crashed");
        }),
      ),
    );
    const obs = await host.runTool({ tool: "read_file", input: { path: "a.txt" } });
    expect(obs).toMatchObject({ ok: false, code: "execution_failed", metadata: { hook_tap: "bad-filter" } });
    expect(obs.content).not.toContain("secret");
    expect(obs.content).toContain("filter crashed");
  });

  it("a beforeTool block decision ends in tool_blocked with the plugin name", async () => {
    ws = makeWorkspace({ "a.txt": "a" });
    host = await openTestHost(ws);
    await host.use(plugin("policy", (h) => h.hooks.beforeTool.tapPromise("policy", async () => ({ block: true, message: "no reads today", by: "policy" }))));
    const obs = await host.runTool({ tool: "read_file", input: { path: "a.txt" } });
    expect(obs).toMatchObject({ ok: false, phase: "hook", code: "tool_blocked", content: "no reads today", metadata: { plugin_name: "policy" } });
  });
});

describe("runToolIntent: timeout and cancellation", () => {
  it("ends a slow tool with code timeout after its timeoutMs", async () => {
    ws = makeWorkspace();
    host = await openTestHost(ws);
    host.registry.register(slowTool("slow", { timeoutMs: 80 }));
    const obs = await host.runTool({ tool: "slow", input: {} });
    expect(obs).toMatchObject({ ok: false, phase: "execute", code: "timeout" });
    expect(obs.content).toContain("80 ms");
    const fast = await host.runTool({ tool: "slow", input: { ms: 1 } });
    expect(fast).toMatchObject({ ok: true, content: "finished" });
  });

  it("returns at the timeout even when the tool ignores its signal", async () => {
    ws = makeWorkspace();
    host = await openTestHost(ws);
    host.registry.register(slowTool("stubborn", { timeoutMs: 50, honour: false }));
    // The tool would answer only after 600 s: the observation comes from the timeout, not from the tool.
    const obs = await host.runTool({ tool: "stubborn", input: {} });
    expect(obs.code).toBe("timeout");
  });

  it("ends with code cancelled when the caller aborts", async () => {
    ws = makeWorkspace();
    host = await openTestHost(ws);
    const slow = slowTool("slow");
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    host.registry.register({ ...slow, execute: (input, ctx) => (started(), slow.execute(input, ctx)) });
    const controller = new AbortController();
    const pending = host.runTool({ tool: "slow", input: {} }, { signal: controller.signal });
    await running; // the tool is executing
    controller.abort();
    const obs = await pending;
    expect(obs).toMatchObject({ ok: false, phase: "execute", code: "cancelled" });
    host.events.flush();
    const events = eventsOfCall(readEvents(ws.path(".keel", "events.jsonl")), String(obs.metadata.callId));
    expect(events.at(-1)).toMatchObject({ type: "tool_observation", code: "cancelled" });
    // an already-aborted signal never starts the tool
    const again = await host.runTool({ tool: "slow", input: { ms: 1 } }, { signal: AbortSignal.abort() });
    expect(again.code).toBe("cancelled");
  });

  it("a timeout longer than a timer can hold (e.g. 1e10 meant as no limit) does not fire at once", async () => {
    ws = makeWorkspace();
    host = await openTestHost(ws);
    // Node fires a timer past 2^31-1 ms after 1 ms: uncapped, this call would time out before its 30 ms sleep ends.
    host.registry.register(slowTool("patient", { timeoutMs: 1e10 }));
    const obs = await host.runTool({ tool: "patient", input: { ms: 30 } });
    expect(obs).toMatchObject({ ok: true, content: "finished" });
  });

  it("ToolContext.onStop hears a cancel and a timeout (with the reason), never a call that ended normally", async () => {
    ws = makeWorkspace();
    host = await openTestHost(ws);
    const heard: string[] = [];
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let finish: (() => void) | undefined;
    host.registry.register({
      ...slowTool("listens", { timeoutMs: 100 }),
      // Never reads ctx.signal: onStop is the whole cancellation path of this tool.
      execute: (input: { ms?: number }, ctx) =>
        new Promise((resolve) => {
          ctx.onStop((reason) => heard.push(reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason)));
          finish = () => resolve({ content: "done" });
          started();
          if (input.ms !== undefined) setTimeout(finish, input.ms);
        }),
    });
    const controller = new AbortController();
    const cancelled = host.runTool({ tool: "listens", input: {} }, { signal: controller.signal });
    await running;
    controller.abort(new Error("stop now"));
    expect((await cancelled).code).toBe("cancelled");
    expect(heard).toEqual(["Error: stop now"]);
    expect((await host.runTool({ tool: "listens", input: {} })).code).toBe("timeout");
    expect(heard[1]).toMatch(/^TimeoutError: listens timed out after 100 ms/);
    const ok = await host.runTool({ tool: "listens", input: { ms: 1 } });
    expect(ok).toMatchObject({ ok: true, content: "done" });
    finish?.(); // a late resolve changes nothing
    expect(heard).toHaveLength(2);
  });
});

describe("runToolIntent: other phases", () => {
  it("the observation's metadata: the tool's and the result's keys, the pipeline's source/resolvedTool/callId winning, no prototype from a __proto__ key", async () => {
    ws = makeWorkspace();
    // As JSON.parse makes them from a hostile manifest or result: `__proto__` as an own key.
    const hostile = () => JSON.parse('{"__proto__": {"injected": true}, "source": "forged", "resolvedTool": "forged", "callId": "forged"}');
    const tool: ToolDefinition = {
      name: "meta_tool",
      description: "returns metadata",
      inputSchema: { type: "object" },
      source: { kind: "runtime", id: "test" },
      risk: ["read"],
      readOnly: true,
      metadata: { ...hostile(), from_tool: 1, shared: "tool" },
      execute: async () => ({ content: "ok", metadata: { ...hostile(), from_result: 2, shared: "result" } }),
    };
    host = await openTestHost(ws);
    host.registry.register(tool);
    const obs = await host.runTool({ tool: "meta_tool", input: {} });
    expect(obs.ok).toBe(true);
    expect(Object.getPrototypeOf(obs.metadata)).toBe(Object.prototype);
    expect((obs.metadata as Record<string, unknown>).injected).toBeUndefined();
    expect(obs.metadata).toMatchObject({ source: { kind: "runtime", id: "test" }, resolvedTool: "meta_tool", from_tool: 1, from_result: 2, shared: "result" });
    expect(obs.metadata.callId).toMatch(/^call_/);
  });

  it("hides tools outside the visible set with tool_not_visible", async () => {
    ws = makeWorkspace({ "a.txt": "a" });
    host = await openTestHost(ws);
    const obs = await host.runTool({ tool: "read_file", input: { path: "a.txt" } }, { isVisible: (n) => n === "grep" });
    expect(obs).toMatchObject({ ok: false, phase: "visibility", code: "tool_not_visible" });
  });

  it("asks an approver, and a 'no' ends in user_denied without running", async () => {
    ws = makeWorkspace();
    host = await openTestHost(ws);
    const asked: string[] = [];
    const approver = { approve: async (r: { tool: string }) => (asked.push(r.tool), "no" as const) };
    const obs = await host.runTool({ tool: "write_file", input: { path: "x.txt", content: "1" } }, { approver });
    expect(obs).toMatchObject({ ok: false, phase: "permission", code: "user_denied" });
    expect(asked).toEqual(["write_file"]);
    expect(ws.exists("x.txt")).toBe(false);
    const yes = await host.runTool({ tool: "write_file", input: { path: "x.txt", content: "1" } }, { approver: { approve: async () => "yes" as const } });
    expect(yes.ok).toBe(true);
    expect(ws.read("x.txt")).toBe("1");
  });

  it("prompts on a terminal: 'a' (always) approves this call and later ones in the session", async () => {
    ws = makeWorkspace();
    host = await openTestHost(ws);
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = "";
    output.on("data", (c: Buffer) => (shown += c.toString()));
    const approver = ttyApprover(input, output);
    const sessionAllow = new Set<string>();
    const pending = host.runTool({ tool: "write_file", input: { path: "t.txt", content: "1" } }, { approver, sessionAllow });
    await vi.waitFor(() => expect(shown).toContain("Allow?"), { timeout: 60_000, interval: 5 }); // the prompt is up
    input.write("a\n");
    expect(await pending).toMatchObject({ ok: true });
    expect(shown).toContain("write_file wants to run [write]");
    expect(sessionAllow.has("write_file")).toBe(true);
    const second = await host.runTool(
      { tool: "write_file", input: { path: "t.txt", content: "2" } },
      { approver: { approve: async () => "no" as const }, sessionAllow },
    );
    expect(second.ok).toBe(true);
    expect(ws.read("t.txt")).toBe("2");
    const no = new PassThrough();
    const out2 = new PassThrough();
    let shown2 = "";
    out2.on("data", (c: Buffer) => (shown2 += c.toString()));
    const p2 = host.runTool({ tool: "bash", input: { command: "touch z" } }, { approver: ttyApprover(no, out2) });
    await vi.waitFor(() => expect(shown2).toContain("Allow?"), { timeout: 60_000, interval: 5 });
    no.write("n\n");
    expect(await p2).toMatchObject({ ok: false, code: "user_denied" });
    expect(ws.exists("z")).toBe(false);
  });
});
