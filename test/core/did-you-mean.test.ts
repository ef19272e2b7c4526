import { describe, expect, it } from "vitest";
import { didYouMean, editDistance, MAX_COMPARED_NAME, quotedName, suggestNames } from "../../core/did-you-mean.js";

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

  it("compares no name longer than the shared cap (128), on either side, and quotes one cut with its length", () => {
    const at = "t".repeat(MAX_COMPARED_NAME - 1);
    // one character off: suggested while both are within the cap
    expect(suggestNames(`${at}x`, [`${at}y`])).toEqual([`${at}y`]);
    // a name over the cap is nobody's misspelling, however close (a model's 100 KB name is never compared)
    expect(suggestNames(`${at}xx`, [`${at}xy`])).toEqual([]);
    expect(didYouMean("x".repeat(1000), ["x".repeat(999)])).toBe("");
    // a candidate over the cap is not compared either (a workspace file's name can be any length)
    expect(suggestNames(`${at}x`, [`${at}xyz`, `${at}y`])).toEqual([`${at}y`]);
    expect(quotedName("bash")).toBe('"bash"');
    expect(quotedName("y".repeat(100_000))).toBe(`"${"y".repeat(MAX_COMPARED_NAME)}…" (100000 characters)`);
  });
});
