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
