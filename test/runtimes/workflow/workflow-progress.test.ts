import { PassThrough } from "node:stream";
import { describe, expect, it, vi } from "vitest";
import type { StepRecord } from "../../../runtimes/workflow/run-record.js";
import { createProgress } from "../../../runtimes/workflow/workflow-progress.js";

function capture() {
  const stream = new PassThrough();
  let text = "";
  stream.on("data", (c: Buffer) => (text += c.toString("utf8")));
  return { stream, text: () => text };
}

const step = (over: Partial<StepRecord>): StepRecord => ({
  index: 0,
  key: "1",
  kind: "run",
  label: "$ npm test",
  status: "succeeded",
  durationMs: 1234,
  summary: "all good\n[exit code 0]",
  ...over,
});

describe("workflow progress output", () => {
  it("on a TTY draws a spinner line per running step, then replaces it with ✓ and the duration", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout", "Date"] });
    const out = capture();
    let text: string;
    try {
      const p = createProgress(out.stream, true);
      p.stepStarted({ depth: 0, index: 0, total: 2, label: "$ npm test", kind: "run" });
      vi.advanceTimersByTime(240); // three spinner ticks
      p.stepFinished({ depth: 0, total: 2, step: step({}) });
      p.close();
      await new Promise((r) => setImmediate(r)); // the PassThrough delivers what was written
      text = out.text();
    } finally {
      vi.useRealTimers();
    }
    expect(text).toMatch(/\r\x1b\[K[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] \[1\/2\] \$ npm test/);
    expect(text.split("\r\x1b[K").length).toBeGreaterThan(3); // redrawn while running
    expect(text).toContain("\r\x1b[K✓ [1/2] $ npm test (1.2 s)\n    ↳ all good\n");
  });

  it("without a TTY prints one plain line per finished step, with the failure reason", () => {
    const out = capture();
    const p = createProgress(out.stream, false);
    p.stepStarted({ depth: 1, index: 1, total: 2, label: "$ exit 3", kind: "run" });
    p.stepFinished({
      depth: 1,
      total: 2,
      step: step({ index: 1, label: "$ exit 3", status: "failed", durationMs: 7, reason: "execution_failed (phase execute): [exit code 3]" }),
    });
    expect(out.text()).toBe("  ✗ [2/2] $ exit 3 (7 ms)\n      execution_failed (phase execute): [exit code 3]\n");
    expect(out.text()).not.toContain("\x1b");
  });
});
