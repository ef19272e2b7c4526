import { describe, expect, it } from "vitest";
import { callIdsIn, uniqueCallIds } from "../../../core/agent/unique-call-ids.js";
import { fileSafeCallId } from "../../../core/artifacts.js";

const call = (id: string, path = "x") => ({ id, name: "read_file", arguments: JSON.stringify({ path }) });

describe("uniqueCallIds", () => {
  it("a constant id over many responses keeps counting up (llama.cpp), each rename checked against every id used", () => {
    const used = callIdsIn([]);
    const ids = Array.from({ length: 5 }, (_, turn) => uniqueCallIds([call("k")], used, turn)[0]!.id);
    expect(ids).toEqual(["k", "k-2", "k-3", "k-4", "k-5"]);
    // an id the model sent that happens to look like a rename is skipped over, never reused
    expect(uniqueCallIds([call("k-6"), call("k")], used, 5).map((c) => c.id)).toEqual(["k-6", "k-7"]);
  });

  it("keeps distinct ids, and the very array, when nothing clashes", () => {
    const calls = [call("call_a"), call("call_b")];
    const used = callIdsIn([]);
    expect(uniqueCallIds(calls, used, 0)).toBe(calls);
    expect([...used.ids]).toEqual(["call_a", "call_b"]);
  });

  it("renames repeats, empty ids and ids that only differ in characters a file name cannot hold", () => {
    const used = callIdsIn([
      { role: "assistant", content: "", toolCalls: [call("old")] },
      { role: "tool", toolCallId: "old", name: "read_file", content: "x" },
    ]);
    const out = uniqueCallIds([call("old", "1"), call("a.b", "2"), call("a_b", "3"), call("", "4"), call("", "5"), call("old-2", "6")], used, 7);
    expect(out.map((c) => c.id)).toEqual(["old-2", "a.b", "a_b-2", "call_7_3", "call_7_4", "old-2-2"]);
    // names and arguments stay as the model sent them
    expect(out.map((c) => JSON.parse(c.arguments).path)).toEqual(["1", "2", "3", "4", "5", "6"]);
    expect(new Set(out.map((c) => fileSafeCallId(c.id))).size).toBe(out.length);
  });

  it("a renamed id keeps the server's own spelling (functions.bash:0 → functions.bash:0-2); ids that are not strings, as old sessions may hold, do not break it", () => {
    const used = callIdsIn([
      { role: "assistant", content: "", toolCalls: [{ id: undefined as unknown as string, name: "bash", arguments: "{}" }] },
      { role: "tool", toolCallId: undefined as unknown as string, name: "bash", content: "x" },
    ]);
    expect(uniqueCallIds([call("functions.bash:0"), call("functions.bash:0"), call(7 as unknown as string)], used, 3).map((c) => c.id)).toEqual([
      "functions.bash:0",
      "functions.bash:0-2",
      "call_3_2",
    ]);
  });

  it("an id longer than an artifact name can hold is cut to 90 characters when renamed, so the renamed one stays distinct", () => {
    const long = "x".repeat(150);
    const used = callIdsIn([]);
    const out = uniqueCallIds([call(long), call(long)], used, 0);
    expect(out[1]!.id).toBe("x".repeat(90));
    expect(fileSafeCallId(out[0]!.id)).not.toBe(fileSafeCallId(out[1]!.id));
  });
});
