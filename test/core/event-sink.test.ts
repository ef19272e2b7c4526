import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { COMMIT_WITHIN_MS, JsonlEventSink, readEvents } from "../../core/events.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";
import { rawEvent } from "../helpers/events.js";

const DIST_EVENTS = fileURLToPath(new URL("../../dist/core/events.js", import.meta.url));

describe("JsonlEventSink", () => {
  let ws: TempWorkspace;
  afterEach(() => ws?.cleanup());

  it("writes exactly JSON.stringify of each event with ts first, and ends a torn last line first", () => {
    ws = makeWorkspace();
    const file = ws.path(".keel", "events.jsonl");
    ws.write(".keel/events.jsonl", '{"ts":1,"type":"a"}\n{"ts":2,"ty'); // a crash mid-write left a torn line
    const sink = new JsonlEventSink(file);
    sink.emit(rawEvent({ type: "tool_intent", callId: "c1", tool: "t", note: 'quote " and \\ and \u0001' }));
    sink.emit(rawEvent({ ts: 5, type: "custom", n: 1 }));
    sink.close();
    const lines = readFileSync(file, "utf8").split("\n");
    expect(lines[1]).toBe('{"ts":2,"ty');
    const first = JSON.parse(lines[2]!);
    expect(lines[2]).toBe(JSON.stringify({ ts: first.ts, type: "tool_intent", callId: "c1", tool: "t", note: 'quote " and \\ and \u0001' }));
    expect(lines[3]).toBe('{"ts":5,"type":"custom","n":1}');
    expect(readEvents(file).map((e) => e.type)).toEqual(["a", "tool_intent", "custom"]);
  });

  it("commit writes pending events within COMMIT_WITHIN_MS, in one write for every commit in that window", async () => {
    ws = makeWorkspace();
    const file = ws.path(".keel", "events.jsonl");
    const sink = new JsonlEventSink(file);
    sink.emit(rawEvent({ type: "first" }));
    sink.flush(); // opens the file
    vi.useFakeTimers();
    try {
      const writes = vi.spyOn(sink as unknown as { flush(durable?: boolean): void }, "flush");
      sink.emit(rawEvent({ type: "a" }));
      sink.commit();
      await vi.advanceTimersByTimeAsync(COMMIT_WITHIN_MS - 1);
      sink.emit(rawEvent({ type: "b" })); // a call ending later in the same window
      sink.commit();
      expect(readEvents(file).map((e) => e.type)).toEqual(["first"]); // nothing written yet
      await vi.advanceTimersByTimeAsync(1);
      expect(readEvents(file).map((e) => e.type)).toEqual(["first", "a", "b"]);
      expect(writes).toHaveBeenCalledTimes(1);
      // A flush (a tool with side effects starting, a session saving) writes at once, the window's timer then finds nothing.
      sink.emit(rawEvent({ type: "c" }));
      sink.commit();
      sink.flush();
      expect(readEvents(file).map((e) => e.type)).toEqual(["first", "a", "b", "c"]);
      await vi.advanceTimersByTimeAsync(COMMIT_WITHIN_MS);
      expect(readEvents(file)).toHaveLength(4);
      // Past 64 KiB pending, the events are written at the end of the turn, not of the window.
      sink.emit(rawEvent({ type: "big", text: "x".repeat(70_000) }));
      sink.commit();
      await vi.advanceTimersByTimeAsync(0);
      expect(readEvents(file).map((e) => e.type)).toEqual(["first", "a", "b", "c", "big"]);
    } finally {
      vi.useRealTimers();
    }
    sink.close();
  });

  it("an event that cannot be serialized becomes a state_error line, and a listener cannot change the record (not even nested)", async () => {
    ws = makeWorkspace();
    const file = ws.path(".keel", "events.jsonl");
    const seen: string[] = [];
    const sink = new JsonlEventSink(file, undefined, false, (event) => {
      seen.push(event.type);
      const nested = (event as { nested?: { v: number } }).nested;
      if (nested) nested.v = 2; // a nested object is not frozen, but the record was made before the listener ran
      (event as { type: string }).type = "forged"; // throws: the event is frozen (and the throw is ignored)
    });
    sink.emit(rawEvent({ type: "kept", n: 1, nested: { v: 1 } }));
    sink.emit(rawEvent({ type: "odd", n: 2n })); // JSON.stringify throws on a BigInt
    sink.emit(rawEvent({ type: "after" }));
    await new Promise((resolve) => setImmediate(resolve)); // the end of the turn: serialized, without throwing from the tick
    sink.close();
    expect(seen).toEqual(["kept", "odd", "after"]);
    const events = readEvents(file);
    expect(events.map((e) => e.type)).toEqual(["kept", "state_error", "after"]);
    expect((events[0] as unknown as { nested: { v: number } }).nested.v).toBe(1);
    expect((events[1] as { message: string }).message).toMatch(/could not record the odd event: .*BigInt/);
  });

  it("flushed() resolves after one write shared by every caller of the same burst, and rejects when it cannot write", async () => {
    ws = makeWorkspace();
    const file = ws.path(".keel", "events.jsonl");
    const sink = new JsonlEventSink(file);
    sink.emit(rawEvent({ type: "a" }));
    const first = sink.flushed();
    sink.emit(rawEvent({ type: "b" })); // a second call starting in the same burst
    const second = sink.flushed();
    expect(second).toBe(first);
    expect(readEvents(file)).toEqual([]); // nothing written before the burst ends
    await first;
    expect(readEvents(file).map((e) => e.type)).toEqual(["a", "b"]);
    sink.close();

    const blocked = ws.path(".keel", "taken.jsonl");
    mkdirSync(blocked, { recursive: true }); // the log path is taken by a directory
    const failing = new JsonlEventSink(blocked);
    failing.emit(rawEvent({ type: "kept" }));
    await expect(failing.flushed()).rejects.toThrow(/EISDIR|illegal operation/i);
    rmSync(blocked, { recursive: true });
    await failing.flushed();
    expect(readEvents(blocked).map((e) => e.type)).toEqual(["kept"]);
    failing.close();
  });

  it("a commit that cannot write keeps the events and a later flush writes them (or throws to its caller)", async () => {
    ws = makeWorkspace();
    const file = ws.path(".keel", "events.jsonl");
    mkdirSync(file, { recursive: true }); // the log path is taken by a directory: open fails
    const sink = new JsonlEventSink(file);
    sink.emit(rawEvent({ type: "kept" }));
    vi.useFakeTimers();
    try {
      sink.commit();
      await vi.advanceTimersByTimeAsync(COMMIT_WITHIN_MS); // the failed write in the timer did not crash the process
    } finally {
      vi.useRealTimers();
    }
    expect(() => sink.flush()).toThrow(/EISDIR|illegal operation/i);
    rmSync(file, { recursive: true });
    sink.emit(rawEvent({ type: "later" }));
    sink.close();
    expect(readEvents(file).map((e) => e.type)).toEqual(["kept", "later"]);
  });

  it("writes committed events when the process exits right away, even on an uncaught exception or before the file was ever opened", () => {
    ws = makeWorkspace();
    for (const [name, opening, ending] of [
      ["exit", "open", "process.exit(3);"],
      ["throw", "open", "throw new Error('boom');"],
      ["never-opened", "", ""], // the script just ends: the commit timer must not be what writes
    ] as const) {
      const file = ws.path(".keel", `${name}.jsonl`);
      const script = ws.path(`${name}.mjs`);
      writeFileSync(
        script,
        `import { JsonlEventSink } from ${JSON.stringify(DIST_EVENTS)};\n` +
          `const sink = new JsonlEventSink(${JSON.stringify(file)});\n` +
          (opening ? `sink.emit({ type: "opened" }); sink.flush();\n` : "") +
          `sink.emit({ type: "last", how: ${JSON.stringify(name)} }); sink.commit();\n${ending}\n`,
      );
      try {
        execFileSync(process.execPath, [script], { stdio: "pipe" });
      } catch {
        // exits non-zero on purpose
      }
      expect(readEvents(file).map((e) => e.type)).toEqual(opening ? ["opened", "last"] : ["last"]);
    }
  });
});
