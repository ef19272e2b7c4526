import { afterEach, describe, expect, it, vi } from "vitest";
import { ThinkBlock } from "../../../core/model/think-block.js";

afterEach(() => vi.restoreAllMocks());

/** Each piece through one ThinkBlock, then its end: what is shown, joined. */
function shown(pieces: readonly string[]): string {
  const block = new ThinkBlock();
  return pieces.map((p) => block.add(p)).join("") + block.end();
}

/** Each piece through one ThinkBlock (`opened` or not), then its end: the answer kept (what was shown, less the reasoning `cut` counts). */
function kept(pieces: readonly string[], opened = false): { answer: string; shown: string; beganInside: boolean } {
  const block = new ThinkBlock(opened);
  const out = pieces.map((p) => block.add(p)).join("") + block.end();
  return { answer: out.slice(block.cut), shown: out, beganInside: block.beganInside };
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

  it("a template that opened the block: reasoning up to a `</think>` line of its own is not kept (split anywhere), nor the blanks after it", () => {
    const r1 = ["Okay, the user wants", " the notes.\n</th", "ink>\n", "\n", "They say hello."];
    expect(kept(r1)).toEqual({ answer: "They say hello.", shown: r1.join(""), beganInside: true });
    expect(kept(["  </think>  \n\nhi"]).answer).toBe("hi");
    expect(kept(["thought\n</think>"]).answer).toBe("");
    // Learned: held from the start, nothing of it shown; the first </think> ends it wherever it stands.
    expect(kept(["Let me see.", "</think>\n\n", "hello"], true)).toEqual({ answer: "hello", shown: "hello", beganInside: true });
    // Learned, but this answer never closed: shown and kept as it came.
    expect(kept(["no block at all"], true)).toEqual({ answer: "no block at all", shown: "no block at all", beganInside: false });
  });

  it("a real answer that merely contains </think> stays whole: inside a line, after <think>, or in a code block", () => {
    for (const answer of [
      "Close it with `</think>` when done.\nThat is all.",
      "The tags are <think> and\n</think>\nin that order.",
      "A template:\n```\nreasoning\n</think>\n```\nDone.",
      "text</think>\nmore",
    ])
      expect(kept([answer]), answer).toEqual({ answer, shown: answer, beganInside: false });
  });

  it("a long line of blanks is looked at a bounded number of times per character (a closing line is at most 64 long)", () => {
    let trimmed = 0;
    const trim = String.prototype.trim;
    vi.spyOn(String.prototype, "trim").mockImplementation(function (this: string) {
      trimmed += this.length;
      return trim.call(this);
    });
    const pieces = 20_000;
    const block = new ThinkBlock();
    block.add("x\n");
    for (let i = 0; i < pieces; i++) block.add(" ");
    block.end();
    expect(trimmed).toBeLessThan(pieces * 4);
  });
});
