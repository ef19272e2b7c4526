import { describe, expect, it } from "vitest";
import { compileGlob, globMatcher } from "../../../core/glob-matcher.js";
import { expandBraces, MAX_BRACE_EXPANSIONS } from "../../../core/glob/brace-expand.js";

const HOSTILE = `*${"a*".repeat(14)}b`;

describe("compileGlob: bounded work for any pattern", () => {
  it("answers a backtracking-bomb pattern against a long name (picomatch's regex takes minutes here)", () => {
    const compiled = compileGlob(HOSTILE, { dot: true });
    if (!("match" in compiled)) throw new Error(`expected a matcher: ${compiled.unsupported}`);
    expect(compiled.match("a".repeat(40))).toBe(false);
    expect(compiled.match(`${"a".repeat(40)}b`)).toBe(true);
    expect(compiled.match(`src/${"a".repeat(5000)}`)).toBe(false);
  });

  it("stops expanding braces past the limit and still answers (through RE2 or failing closed)", () => {
    const bomb = "{a,b}".repeat(20);
    expect(expandBraces(bomb)).toBeUndefined();
    expect(expandBraces("{a,b}".repeat(8))).toHaveLength(MAX_BRACE_EXPANSIONS);
    const compiled = compileGlob(bomb);
    expect("match" in compiled && compiled.match("ab".repeat(10))).toBe(true);
    const starred = compileGlob(`*${"{a,b}*".repeat(20)}`);
    expect(starred).toEqual({ unsupported: expect.stringContaining("bounded time") });
  });

  it("runs syntax outside the documented subset on RE2 when picomatch's regex allows it", () => {
    const ext = compileGlob("@(read|write)_file");
    expect("match" in ext && ext.match("read_file") && !ext.match("list_file")).toBe(true);
    const range = compileGlob("v{1..3}");
    expect("match" in range && range.match("v2") && !range.match("v4")).toBe(true);
  });

  it("reports patterns it cannot match in bounded time, naming them", () => {
    for (const pattern of ["!(secret)", "*(a|b)x", "!foo", "[[:alpha:]]x", "**.env"]) {
      expect(compileGlob(pattern)).toEqual({ unsupported: expect.stringContaining(`"${pattern}"`) });
    }
  });
});

describe("globMatcher: what an uncompilable pattern matches", () => {
  it('matches everything with "all" (deny, exclusion lists) and nothing with "none" (allow, inclusion lists)', () => {
    expect(globMatcher("!(x)", {}, "all")("anything")).toBe(true);
    expect(globMatcher("!(x)", {}, "none")("anything")).toBe(false);
    expect(globMatcher("mcp__*", {}, "none")("mcp__a")).toBe(true);
  });
});
