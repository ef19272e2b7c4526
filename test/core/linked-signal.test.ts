import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { linkedSignal } from "../../core/linked-signal.js";
import { Retained } from "../helpers/retained.js";

describe("linkedSignal", () => {
  it("aborts with the reason of the first source that aborts, then lets go of the others", () => {
    const a = new AbortController();
    const b = new AbortController();
    const linked = linkedSignal([a.signal, undefined, b.signal]);
    expect(linked.signal.aborted).toBe(false);
    b.abort(new Error("b went"));
    expect(linked.signal.aborted).toBe(true);
    expect((linked.signal.reason as Error).message).toBe("b went");
    expect(getEventListeners(a.signal, "abort")).toHaveLength(0);
    a.abort(new Error("a went"));
    expect((linked.signal.reason as Error).message).toBe("b went");
  });

  it("is born aborted when a source already is, and adds no listener", () => {
    const a = new AbortController();
    const b = new AbortController();
    b.abort("done");
    const linked = linkedSignal([a.signal, b.signal]);
    expect(linked.signal.aborted).toBe(true);
    expect(linked.signal.reason).toBe("done");
    expect(getEventListeners(a.signal, "abort")).toHaveLength(0);
  });

  it("unlink removes its listeners: a long-lived source keeps none, and the linked signals are freed though a listener stays on each", async () => {
    const source = new AbortController();
    const retained = new Retained();
    for (let i = 0; i < 500; i++) {
      const linked = linkedSignal([source.signal, AbortSignal.timeout(60_000)]);
      // as the MCP SDK and the openai client do: a listener that is never removed
      linked.signal.addEventListener("abort", () => undefined);
      retained.watch(linked.signal);
      linked.unlink();
      linked.unlink();
    }
    expect(getEventListeners(source.signal, "abort")).toHaveLength(0);
    expect(await retained.alive()).toBeLessThanOrEqual(3);
    source.abort();
  });
});
