import { describe, expect, it } from "vitest";
import { mapCallResult } from "../../../runtimes/mcp/map-result.js";

describe("mapCallResult (an MCP result as keel's tool result; never throws)", () => {
  it("structured content alone becomes its JSON text; a text copy, when the server sends one, is kept as sent", () => {
    expect(mapCallResult({ content: [], structuredContent: { n: 1 } }, {})).toMatchObject({ content: '{"n":1}', data: { n: 1 } });
    expect(mapCallResult({ content: [{ type: "text", text: "one" }], structuredContent: { n: 1 } }, {})).toMatchObject({ content: "one", data: { n: 1 } });
  });

  it("structured content nested too deep for JSON.stringify (a hostile server) becomes a note, not a crash", () => {
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 200_000; i++) deep = { a: deep };
    const r = mapCallResult({ content: [], structuredContent: deep }, {});
    expect(r.content).toMatch(/^\[structured content that cannot be shown as JSON: /);
  });
});
