import { describe, expect, it } from "vitest";
import { boundFoundTools, MAX_FOUND_TOOLS } from "../../../core/agent/found-tools.js";

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

  it("holds at most MAX_FOUND_TOOLS names: tools renamed away (costing nothing) do not pile up search after search", () => {
    let order: string[] = [];
    for (let search = 0; search < 50; search++) {
      // a server that renames its 20 tools before every search: the old names are no longer registered
      const found = Array.from({ length: 20 }, (_, i) => `mcp__s__t${search}_${i}`);
      const live = new Set(found);
      order = boundFoundTools({ order, found, keep: new Set(["kept"]), cost: (n) => (live.has(n) ? 100 : 0), budget: 10_000 }).order;
    }
    expect(order.length).toBe(MAX_FOUND_TOOLS);
    expect(order.at(-1)).toBe("mcp__s__t49_19");
    expect(boundFoundTools({ order: ["kept", ...order], found: ["new"], keep: new Set(["kept"]), cost: () => 0, budget: 10_000 }).order).toContain("kept");
  });
});
