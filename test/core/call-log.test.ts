import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { CallLog } from "../../core/call-log.js";
import { JsonlEventSink, MemoryEventSink, readEvents } from "../../core/events.js";
import type { Host } from "../../core/host.js";
import type { EventInput, EventSink, KeelEvent, Observation } from "../../core/types.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";
import { openTestHost } from "../helpers/test-host.js";
import { eventsOfCall, eventsOfType, rawEvent } from "../helpers/events.js";

/** A sink without segment support: gets event objects at once. */
class PlainSink implements EventSink {
  readonly events: KeelEvent[] = [];
  emit(event: EventInput): void {
    this.events.push({ ts: Date.now(), ...event } as KeelEvent);
  }
  flush(): void {}
}

const observation = (over: Partial<Observation> = {}): Observation =>
  ({
    ok: false,
    phase: "execute",
    code: 'weird "code"\n',
    content: "",
    data: null,
    metadata: {},
    messages: { beforeTool: [], afterResult: [] },
    truncated: true,
    artifacts: [],
    tool: 't\u00e9l\u00e9 "x"',
    durationMs: 1.25,
    ...over,
  }) as Observation;

const CHECKS = ["lookup", "visibility", "validate", "hook", "permission"];
const STEPS = ["execute", "normalize", "truncate"];

/** Records two full calls, with another event emitted in the middle (as an MCP progress event would be). */
function record(sink: EventSink): void {
  const tool = 't\u00e9l\u00e9 "x"';
  const log = new CallLog(sink, "call_1", tool);
  log.intent("agent", "sess\\1");
  log.executing({ resolvedTool: "base_tool", alias: true, unvalidated: true, hookMessages: 2, action: "ask", approvedBy: "user", rule: "bash(rm *)" });
  sink.emit(rawEvent({ type: "mcp_progress", callId: "call_1", progress: 1 }));
  log.stored(3, 42);
  log.observation(observation());
  const plain = new CallLog(sink, "call_2", "echo");
  plain.intent("api", undefined);
  plain.executing({ resolvedTool: "echo", alias: false, unvalidated: false, hookMessages: 0, action: "allow", approvedBy: "policy", rule: undefined });
  plain.returned();
  plain.observation(observation({ ok: false, phase: "execute", code: "execution_failed", truncated: false, tool: "echo", durationMs: 0.5 }));
}

const withoutTs = (e: KeelEvent) => JSON.stringify({ ...e, ts: 0 });

describe("CallLog", () => {
  let ws: TempWorkspace;
  afterEach(() => ws?.cleanup());

  it("gives the same events, in the same order, to JSONL, memory and plain sinks; JSONL lines are exactly JSON.stringify", () => {
    ws = makeWorkspace();
    const file = ws.path("events.jsonl");
    const jsonl = new JsonlEventSink(file);
    const memory = new MemoryEventSink();
    const plain = new PlainSink();
    for (const sink of [jsonl, memory, plain]) record(sink);
    jsonl.close();
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    const parsed = lines.map((l) => JSON.parse(l) as KeelEvent);
    lines.forEach((line, i) => expect(line).toBe(JSON.stringify(parsed[i])));
    expect(parsed.map((e) => e.type)).toEqual([
      "tool_intent",
      "tool_execute",
      "mcp_progress",
      "tool_observation",
      "tool_intent",
      "tool_execute",
      "tool_observation",
    ]);
    expect(memory.events.map(withoutTs)).toEqual(parsed.map(withoutTs));
    expect(plain.events.map(withoutTs)).toEqual(parsed.map(withoutTs));
    expect(parsed[0]).toMatchObject({ origin: "agent", sessionId: "sess\\1", tool: 't\u00e9l\u00e9 "x"' });
    expect(parsed[1]).toMatchObject({
      steps: CHECKS,
      resolvedTool: "base_tool",
      alias: true,
      unvalidated: true,
      hookMessages: 2,
      action: "ask",
      approvedBy: "user",
      rule: "bash(rm *)",
    });
    expect(parsed[3]).toMatchObject({ ok: false, code: 'weird "code"\n', truncated: true, durationMs: 1.25, steps: STEPS, artifacts: 3, chars: 42 });
    // facts that do not apply are left out
    expect(Object.keys(parsed[5]!)).toEqual(["ts", "type", "callId", "tool", "steps", "resolvedTool", "action", "approvedBy"]);
    expect(parsed[6]).toMatchObject({ steps: ["execute"] });
    expect(Object.keys(parsed[6]!)).toEqual(["ts", "type", "callId", "tool", "ok", "phase", "code", "durationMs", "steps"]);
    expect(parsed.every((e) => typeof e.ts === "number" && e.ts > 0)).toBe(true);
  });

  it("keeps a call's events in order when the sink writes in the middle of the call", () => {
    ws = makeWorkspace();
    const file = ws.path("events.jsonl");
    const jsonl = new JsonlEventSink(file);
    const log = new CallLog(jsonl, "c", "write_file");
    log.intent("api", undefined);
    log.executing({ resolvedTool: "write_file", alias: false, unvalidated: false, hookMessages: 0, action: "allow", approvedBy: "policy", rule: undefined });
    jsonl.flush(); // before a tool with side effects runs
    const types = () =>
      readFileSync(file, "utf8")
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l).type);
    expect(types()).toEqual(["tool_intent", "tool_execute"]);
    log.stored(0, 5);
    log.observation(observation({ ok: true, phase: "done", code: "ok", truncated: false }));
    jsonl.close();
    expect(types()).toEqual(["tool_intent", "tool_execute", "tool_observation"]);
  });

  it("memory sinks keep other events between a call's lines, and forget them on clear", () => {
    const memory = new MemoryEventSink();
    const log = new CallLog(memory, "c", "echo");
    log.intent("api", undefined);
    memory.emit(rawEvent({ type: "other" }));
    log.observation(observation({ phase: "lookup", code: "unknown_tool", truncated: false }));
    expect(memory.events.map((e) => e.type)).toEqual(["tool_intent", "other", "tool_observation"]);
    expect(eventsOfType(memory.events, "tool_observation")[0]?.steps).toBeUndefined();
    memory.clear();
    expect(memory.events).toEqual([]);
  });
});

describe("runToolIntent's event lines", () => {
  let ws: TempWorkspace;
  let host: Host | undefined;
  afterEach(async () => {
    await host?.close();
    host = undefined;
    ws?.cleanup();
  });

  it("a successful call writes exactly three lines to events.jsonl that name every pipeline step, in order", async () => {
    ws = makeWorkspace({ "a.txt": "alpha\n" });
    host = await openTestHost(ws);
    const sizeBefore = ws.exists(".keel/events.jsonl") ? readFileSync(ws.path(".keel", "events.jsonl")).length : 0;
    const obs = await host.runTool({ tool: "read_file", input: { path: "a.txt" } }, { origin: "test" });
    expect(obs).toMatchObject({ ok: true, phase: "done", code: "ok" });
    host.events.flush();
    const text = readFileSync(ws.path(".keel", "events.jsonl"), "utf8").slice(sizeBefore);
    const lines = text.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    const events = lines.map((l) => JSON.parse(l) as KeelEvent);
    expect(eventsOfCall(events, String(obs.metadata.callId))).toHaveLength(3);
    expect(events.map((e) => e.type)).toEqual(["tool_intent", "tool_execute", "tool_observation"]);
    const execute = eventsOfType(events, "tool_execute")[0]!;
    const observed = eventsOfType(events, "tool_observation")[0]!;
    expect(events[0]).toMatchObject({ tool: "read_file", origin: "test" });
    expect(execute).toMatchObject({ steps: CHECKS, resolvedTool: "read_file", action: "allow", approvedBy: "policy" });
    expect(observed).toMatchObject({ ok: true, phase: "done", code: "ok", steps: STEPS, chars: obs.content.length });
    // Every pipeline phase is named once across the three lines: intent, the five checks, the three steps, observe.
    const named = [events[0]!.type, ...execute.steps, ...(observed.steps ?? []), observed.type];
    expect(named).toEqual(["tool_intent", ...CHECKS, ...STEPS, "tool_observation"]);
  });

  it("a call refused by a check records that check's event with its reason, and no tool_execute", async () => {
    ws = makeWorkspace({ "keel.config.json": { permissions: { deny: ["write_file"] } } });
    host = await openTestHost(ws);
    const obs = await host.runTool({ tool: "write_file", input: { path: "x.txt", content: "x" } });
    expect(obs).toMatchObject({ ok: false, phase: "permission", code: "permission_denied" });
    host.events.flush();
    const events = eventsOfCall(readEvents(ws.path(".keel", "events.jsonl")), String(obs.metadata.callId));
    expect(events.map((e) => e.type)).toEqual(["tool_intent", "tool_permission", "tool_observation"]);
    expect(events[1]).toMatchObject({ action: "deny", rule: "write_file" });
    expect(events[2]).toMatchObject({ ok: false, phase: "permission", code: "permission_denied" });
    expect(events[2]).not.toHaveProperty("steps");
  });
});
