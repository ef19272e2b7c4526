import { describe, expect, it } from "vitest";
import { StreamedReasoning } from "../../../core/model/reasoning-field.js";

describe("StreamedReasoning (reasoning put together from stream deltas)", () => {
  it("appends plain text under the first field, merges details by index and continues an index-less detail of the same type only", () => {
    const r = new StreamedReasoning();
    for (const delta of [
      { reasoning_content: "I should " },
      { reasoning_content: "read it." },
      { reasoning_details: [{ type: "reasoning.text", index: 0, text: "I should " }] },
      { reasoning_details: [{ type: "reasoning.text", index: 0, text: "read it.", signature: "S1" }] },
      { reasoning_details: [{ type: "reasoning.encrypted", data: "AB" }] },
      { reasoning_details: [{ data: "CD" }] },
      { reasoning_details: [{ type: "reasoning.summary", summary: "short" }] },
      { content: "no reasoning here" },
    ])
      r.add(delta);
    expect(r.result()).toEqual({
      field: "reasoning_content",
      text: "I should read it.",
      details: [
        { type: "reasoning.text", index: 0, text: "I should read it.", signature: "S1" },
        { type: "reasoning.encrypted", data: "ABCD" },
        { type: "reasoning.summary", summary: "short" },
      ],
    });
  });

  it("a stream without reasoning has none; a __proto__ key in a detail sets no prototype", () => {
    const none = new StreamedReasoning();
    none.add({ content: "x" });
    expect(none.result()).toBeUndefined();
    const r = new StreamedReasoning();
    r.add(JSON.parse('{"reasoning_details":[{"type":"reasoning.text","index":0,"text":"a","__proto__":{"polluted":true}}]}'));
    const detail = r.result()!.details![0]!;
    expect(Object.getPrototypeOf(detail)).toBe(Object.prototype);
    expect((detail as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it("many details with distinct indexes are each kept (one map lookup per piece, no copying)", () => {
    const r = new StreamedReasoning();
    for (let i = 0; i < 20_000; i++) r.add({ reasoning_details: [{ type: "reasoning.text", index: i, text: "x" }] });
    expect(r.result()!.details).toHaveLength(20_000);
  });
});
