import { describe, expect, it } from "vitest";
import { callMarkValue, carriesMark } from "../../../core/tools/call-mark.js";

const block = (...vars: string[]) => Buffer.from(vars.map((v) => `${v}\0`).join(""));

describe("the call mark in a process's environment", () => {
  it("matches KEEL_CALL holding the mark exactly, first, later or among nested calls' marks; nothing else", () => {
    expect(carriesMark(block("KEEL_CALL=abc", "PATH=/bin"), "abc")).toBe(true);
    expect(carriesMark(block("HOME=/h", "KEEL_CALL=outer:abc"), "abc")).toBe(true);
    expect(carriesMark(block("KEEL_CALL=abc:inner"), "abc")).toBe(true);
    expect(carriesMark(block("KEEL_CALL=abcd"), "abc")).toBe(false);
    expect(carriesMark(block("X=KEEL_CALL=abc", "Y=1"), "abc")).toBe(false);
    expect(carriesMark(block("XKEEL_CALL=abc"), "abc")).toBe(false);
    expect(carriesMark(Buffer.alloc(0), "abc")).toBe(false);
  });

  it("a call inside a call appends its mark, so the outer call's kill path still finds the inner call's processes", () => {
    expect(callMarkValue({}, "m2")).toBe("m2");
    expect(callMarkValue({ KEEL_CALL: "m1" }, "m2")).toBe("m1:m2");
  });
});
