import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { AbortFanout } from "../../core/abort-fanout.js";

describe("AbortFanout", () => {
  it("stops every watcher still watching when the signal aborts, with one listener on the signal", () => {
    const fanout = new AbortFanout();
    const controller = new AbortController();
    const stopped: unknown[] = [];
    const watchers = Array.from({ length: 100 }, (_, i) => ({ stop: (reason: unknown) => stopped.push([i, reason]) }));
    for (const w of watchers) fanout.watch(controller.signal, w);
    for (const w of watchers.slice(0, 50)) fanout.unwatch(controller.signal, w);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
    controller.abort("bye");
    expect(stopped).toHaveLength(50);
    expect(stopped[0]).toEqual([50, "bye"]);
    // A watcher unwatched while others are being stopped (its call ended meanwhile) is not stopped.
    const other = new AbortController();
    const order: string[] = [];
    const b = { stop: () => order.push("b") };
    const a = { stop: () => (order.push("a"), fanout.unwatch(other.signal, b)) };
    fanout.watch(other.signal, a);
    fanout.watch(other.signal, b);
    other.abort();
    expect(order).toEqual(["a"]);
  });
});
