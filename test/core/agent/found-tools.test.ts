import { describe, expect, it } from "vitest";
import { boundFoundTools } from "../../../core/agent/found-tools.js";

const cost = () => 100;

describe("boundFoundTools", () => {
  it("adds a search's tools as the most recent and drops the least recently found or used until the set fits", () => {
    const r = boundFoundTools({ order: ["a", "b", "c", "d"], found: ["e", "b"], keep: new Set(), cost, budget: 300 });
    expect(r.added).toEqual(["e"]);
    expect(r.dropped).toEqual(["a", "c"]);
    expect(r.order).toEqual(["d", "e", "b"]);
  });

  it("never drops what this search found or what is kept (called this turn, pending), even past the budget", () => {
    const r = boundFoundTools({ order: ["a", "b", "c"], found: ["x", "y"], keep: new Set(["a"]), cost, budget: 100 });
    expect(r.dropped).toEqual(["b", "c"]);
    expect(r.order).toEqual(["a", "x", "y"]);
  });

  it("drops nothing within the budget, and a tool no longer registered costs nothing", () => {
    const r = boundFoundTools({ order: ["gone", "a"], found: ["b"], keep: new Set(), cost: (n) => (n === "gone" ? 0 : 100), budget: 200 });
    expect(r.dropped).toEqual([]);
    expect(r.order).toEqual(["gone", "a", "b"]);
    expect(boundFoundTools({ order: ["a"], found: ["b", "b"], keep: new Set(), cost, budget: Infinity }).order).toEqual(["a", "b"]);
  });
});
