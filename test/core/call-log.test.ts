import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { CallLog } from "../../core/call-log.js";
import { JsonlEventSink, MemoryEventSink } from "../../core/events.js";
import type { EventInput, EventSink, KeelEvent, Observation } from "../../core/types.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";
import { rawEvent } from "../helpers/events.js";

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

/** Records a full call, with another event emitted in the middle (as an MCP progress event would be). */
function record(sink: EventSink): void {
  const tool = 't\u00e9l\u00e9 "x"';
  const log = new CallLog(sink, "call_1", tool);
  log.intent("agent", "sess\\1");
  log.found("base_tool", true);
  log.visible();
  log.valid(true);
  log.hookPassed(2);
  log.permitted("ask", "user", "bash(rm *)");
  log.executing("base_tool");
  sink.emit(rawEvent({ type: "mcp_progress", callId: "call_1", progress: 1 }));
  log.result(false);
  log.normalized(3);
  log.truncated(true, 42);
  log.observation(observation());
  const plain = new CallLog(sink, "call_2", "echo");
  plain.intent("api", undefined);
  plain.found("echo", false);
  plain.visible();
  plain.valid(false);
  plain.hookPassed(0);
  plain.permitted("allow", "policy", undefined);
  plain.executing("echo");
  plain.result(true);
  plain.normalized(0);
  plain.truncated(false, 8);
  plain.observation(observation({ ok: true, phase: "done", code: "ok", truncated: false, tool: "echo", durationMs: 0.5 }));
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
      "tool_lookup",
      "tool_visibility",
      "tool_validate",
      "tool_hook",
      "tool_permission",
      "tool_execute",
      "mcp_progress",
      "tool_result",
      "tool_normalize",
      "tool_truncate",
      "tool_observation",
      "tool_intent",
      "tool_lookup",
      "tool_visibility",
      "tool_validate",
      "tool_hook",
      "tool_permission",
      "tool_execute",
      "tool_result",
      "tool_normalize",
      "tool_truncate",
      "tool_observation",
    ]);
    expect(memory.events.map(withoutTs)).toEqual(parsed.map(withoutTs));
    expect(plain.events.map(withoutTs)).toEqual(parsed.map(withoutTs));
    expect(parsed[0]).toMatchObject({ origin: "agent", sessionId: "sess\\1", tool: 't\u00e9l\u00e9 "x"' });
    expect(parsed[1]).toMatchObject({ found: true, resolvedTool: "base_tool", alias: true });
    expect(parsed[5]).toMatchObject({ action: "ask", approvedBy: "user", rule: "bash(rm *)" });
    expect(parsed[11]).toMatchObject({ ok: false, code: 'weird "code"\n', truncated: true, durationMs: 1.25 });
    expect(parsed[13]).not.toHaveProperty("alias");
    expect(parsed[16]).not.toHaveProperty("messages");
    expect(parsed.every((e) => typeof e.ts === "number" && e.ts > 0)).toBe(true);
  });

  it("keeps a segment's events when the sink writes in the middle of a call", () => {
    ws = makeWorkspace();
    const file = ws.path("events.jsonl");
    const jsonl = new JsonlEventSink(file);
    const log = new CallLog(jsonl, "c", "write_file");
    log.intent("api", undefined);
    log.executing("write_file");
    jsonl.flush(); // before a tool with side effects runs
    expect(
      readFileSync(file, "utf8")
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l).type),
    ).toEqual(["tool_intent", "tool_execute"]);
    log.result(true);
    jsonl.close();
    expect(
      readFileSync(file, "utf8")
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l).type),
    ).toEqual(["tool_intent", "tool_execute", "tool_result"]);
  });

  it("expands memory segments on read and keeps later events of the same call after them", () => {
    const memory = new MemoryEventSink();
    const log = new CallLog(memory, "c", "echo");
    log.intent("api", undefined);
    expect(memory.events.map((e) => e.type)).toEqual(["tool_intent"]);
    log.found("echo", false);
    memory.emit(rawEvent({ type: "other" }));
    log.visible();
    expect(memory.events.map((e) => e.type)).toEqual(["tool_intent", "tool_lookup", "other", "tool_visibility"]);
    memory.clear();
    expect(memory.events).toEqual([]);
  });
});
