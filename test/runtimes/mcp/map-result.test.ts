import { describe, expect, it } from "vitest";
import { MAX_DATA_DEPTH, mapCallResult, nestedDeeperThan } from "../../../runtimes/mcp/map-result.js";

describe("mapCallResult (an MCP result as keel's tool result; never throws)", () => {
  it("structured content alone becomes its JSON text; a text copy, when the server sends one, is kept as sent", () => {
    expect(mapCallResult({ content: [], structuredContent: { n: 1 } }, {})).toMatchObject({ content: '{"n":1}', data: { n: 1 } });
    expect(mapCallResult({ content: [{ type: "text", text: "one" }], structuredContent: { n: 1 } }, {})).toMatchObject({ content: "one", data: { n: 1 } });
  });

  it("structured content nested deeper than MAX_DATA_DEPTH (a hostile server) is left out with a note, never a crash; up to the bound it is kept", () => {
    const nest = (levels: number) => {
      let v: Record<string, unknown> = {};
      for (let i = 1; i < levels; i++) v = { a: v };
      return v;
    };
    expect(nestedDeeperThan(nest(MAX_DATA_DEPTH), MAX_DATA_DEPTH)).toBe(false);
    expect(nestedDeeperThan(nest(MAX_DATA_DEPTH + 1), MAX_DATA_DEPTH)).toBe(true);
    expect(nestedDeeperThan({ list: [1, [2, [3]]], x: null }, 3)).toBe(true); // arrays count as levels
    expect(nestedDeeperThan({ list: [1, [2, [3]]], x: null }, 4)).toBe(false);
    const kept = mapCallResult({ content: [], structuredContent: nest(MAX_DATA_DEPTH) }, {});
    expect(kept.data).toEqual(nest(MAX_DATA_DEPTH));
    expect(kept.metadata).not.toHaveProperty("structured_content_omitted");
    for (const levels of [MAX_DATA_DEPTH + 1, 200_000]) {
      const alone = mapCallResult({ content: [], structuredContent: nest(levels) }, { server_name: "s" });
      expect(alone.data).toBeNull();
      expect(alone.content).toBe(`[the server's structuredContent nests deeper than ${MAX_DATA_DEPTH} levels; it was left out]`);
      expect(alone.metadata).toMatchObject({ server_name: "s", structured_content_omitted: expect.stringContaining("deeper than") });
      // With a text copy, the model reads the text; the data is still left out.
      const withText = mapCallResult({ content: [{ type: "text", text: "t" }], structuredContent: nest(levels), isError: true }, {});
      expect(withText).toMatchObject({ ok: false, content: "t", data: null });
    }
    // A legacy `toolResult` too deep for JSON becomes a note as well.
    expect(mapCallResult({ toolResult: nest(200_000) }, {}).content).toMatch(/^\[structured content that cannot be shown as JSON: /);
  });
});
