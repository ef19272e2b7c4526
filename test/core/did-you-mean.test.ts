import { describe, expect, it } from "vitest";
import { didYouMean, editDistance, suggestNames } from "../../core/did-you-mean.js";

describe("did you mean", () => {
  it("measures edit distance", () => {
    expect(editDistance("reed_file", "read_file")).toBe(1);
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("flaw", "lawn")).toBe(2);
  });

  it("suggests typos, other cases and prefixes, best first; nothing for unrelated names", () => {
    const tools = ["read_file", "write_file", "edit_file", "bash", "grep", "glob"];
    expect(suggestNames("reed_file", tools)[0]).toBe("read_file");
    expect(suggestNames("BASH", tools)).toEqual(["bash"]);
    expect(suggestNames("s-2026", ["s-20261125-101500-ab12", "other"])).toEqual(["s-20261125-101500-ab12"]);
    expect(suggestNames("zzzzzz", tools)).toEqual([]);
    expect(suggestNames("gre", tools)).toContain("grep");
    expect(didYouMean("reed_file", tools)).toMatch(/^ Did you mean "read_file"/);
    expect(didYouMean("zzzzzz", tools)).toBe("");
  });
});
