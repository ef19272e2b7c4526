import fc from "fast-check";
import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { compileGlob } from "../../../core/glob-matcher.js";
import { INPUTS, PATTERNS } from "./glob-corpus.js";

describe("keel's linear glob matcher agrees with picomatch", () => {
  for (const dot of [false, true]) {
    it(`on every documented pattern and path (dot: ${dot})`, () => {
      const disagreements: string[] = [];
      for (const pattern of PATTERNS) {
        const compiled = compileGlob(pattern, { dot });
        if (!("match" in compiled)) continue;
        const reference = picomatch(pattern, { dot });
        for (const input of INPUTS) {
          if (compiled.match(input) !== reference(input))
            disagreements.push(`${JSON.stringify(pattern)} on ${JSON.stringify(input)}: picomatch says ${reference(input)}`);
        }
      }
      expect(disagreements).toEqual([]);
    });
  }
});

describe("segments of literals and stars (matched by placing literal runs leftmost) agree with picomatch", () => {
  it("on random short patterns and names over a small alphabet", () => {
    // No `.` in patterns: picomatch special-cases `*.*` (no match for "a.") and `.*` (matches ".."), which keel does not copy.
    const pattern = fc.array(fc.constantFrom("a", "b", "x", "*"), { minLength: 1, maxLength: 7 }).map((cs) => cs.join("").replace(/\*+/g, "*")); // `**` is a globstar, matched elsewhere
    const name = fc.array(fc.constantFrom("a", "b", "x", "."), { maxLength: 9 }).map((cs) => cs.join(""));
    fc.assert(
      fc.property(pattern, name, fc.boolean(), (p, n, dot) => {
        const compiled = compileGlob(p, { dot });
        return "match" in compiled && compiled.match(n) === picomatch(p, { dot })(n);
      }),
      { numRuns: 3000 },
    );
  });
});
