import { afterEach, describe, expect, it, vi } from "vitest";
import { ThinkBlock } from "../../../core/model/think-block.js";

afterEach(() => vi.restoreAllMocks());

/** Each piece through one ThinkBlock, then its end: what is shown, joined. */
function shown(pieces: readonly string[]): string {
  const block = new ThinkBlock();
  return pieces.map((p) => block.add(p)).join("") + block.end();
}

describe("ThinkBlock (a leading <think> block in streamed content)", () => {
  it("blanks before <think> go with the block; blanks before other text stay; a tag split across pieces is found", () => {
    expect(shown(["\n", " ", "\n<thi", "nk>reasoning</th", "ink>\n\n", "answer"])).toBe("answer");
    expect(shown(["\n", "  ", "hello"])).toBe("\n  hello");
    expect(shown(["  <th", "e>"])).toBe("  <the>");
    expect(shown(["   "])).toBe("   ");
    expect(shown(["\n<think>never closed"])).toBe("\n<think>never closed");
  });

  it("a stream of blanks is looked at once, not again with every piece (a hostile server sending megabytes of them)", () => {
    // Counted, not timed: the characters keel trims over. Before, all of `held` was trimmed again for each piece.
    let trimmed = 0;
    const trimStart = String.prototype.trimStart;
    vi.spyOn(String.prototype, "trimStart").mockImplementation(function (this: string) {
      trimmed += this.length;
      return trimStart.call(this);
    });
    const pieces = 20_000;
    const block = new ThinkBlock();
    let out = "";
    for (let i = 0; i < pieces; i++) out += block.add(" ");
    out += block.add("<think>x</think>done") + block.end();
    expect(out).toBe("done");
    expect(trimmed).toBeLessThan(pieces * 4);
  });
});
