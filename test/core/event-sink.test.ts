import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { JsonlEventSink, readEvents } from "../../core/events.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";
import { rawEvent } from "../helpers/events.js";

const DIST_EVENTS = fileURLToPath(new URL("../../dist/core/events.js", import.meta.url));
const nextTurn = () => new Promise((r) => setImmediate(r));

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

  it("commit writes pending events before the event loop moves on, once for all commits of the same burst", async () => {
    ws = makeWorkspace();
    const file = ws.path(".keel", "events.jsonl");
    const sink = new JsonlEventSink(file);
    sink.emit(rawEvent({ type: "first" }));
    sink.flush(); // opens the file
    sink.emit(rawEvent({ type: "a" }));
    sink.commit();
    sink.emit(rawEvent({ type: "b" }));
    sink.commit();
    await Promise.resolve(); // microtasks of the same burst still run before the write
    sink.emit(rawEvent({ type: "c" }));
    sink.commit();
    await nextTurn();
    expect(readEvents(file).map((e) => e.type)).toEqual(["first", "a", "b", "c"]);
    sink.close();
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
    sink.commit();
    await nextTurn(); // the failed write in the tick did not crash the process
    expect(() => sink.flush()).toThrow(/EISDIR|illegal operation/i);
    rmSync(file, { recursive: true });
    sink.emit(rawEvent({ type: "later" }));
    sink.close();
    expect(readEvents(file).map((e) => e.type)).toEqual(["kept", "later"]);
  });

  it("writes committed events when the process exits right away, even on an uncaught exception", () => {
    ws = makeWorkspace();
    for (const [name, ending] of [
      ["exit", "process.exit(3);"],
      ["throw", "throw new Error('boom');"],
    ] as const) {
      const file = ws.path(".keel", `${name}.jsonl`);
      const script = ws.path(`${name}.mjs`);
      writeFileSync(
        script,
        `import { JsonlEventSink } from ${JSON.stringify(DIST_EVENTS)};\n` +
          `const sink = new JsonlEventSink(${JSON.stringify(file)});\n` +
          `sink.emit({ type: "opened" }); sink.flush();\n` +
          `sink.emit({ type: "last", how: ${JSON.stringify(name)} }); sink.commit();\n${ending}\n`,
      );
      try {
        execFileSync(process.execPath, [script], { stdio: "pipe" });
      } catch {
        // exits non-zero on purpose
      }
      expect(readEvents(file).map((e) => e.type)).toEqual(["opened", "last"]);
    }
  });
});
