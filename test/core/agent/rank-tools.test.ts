import { describe, expect, it } from "vitest";
import type { ToolListing } from "../../../core/registry.js";
import { rankTools } from "../../../core/agent/rank-tools.js";

function tool(name: string, description: string, source = "p"): ToolListing {
  return { name, description, source: { kind: "plugin", id: source }, inputSchema: { type: "object" }, risk: ["read"], readOnly: true };
}

const names = (tools: ToolListing[]) => tools.map((t) => t.name);

describe("rankTools", () => {
  it("a query word counts once per tool: repeating it in a description gains nothing", () => {
    const tools = [tool("a_lookup", "weather ".repeat(200), "flood"), tool("b_lookup", "The weather.", "other")];
    const ranked = rankTools(tools, "weather", 8);
    // same score: ties go by name, not by how often the word occurs
    expect(names(ranked)).toEqual(["a_lookup", "b_lookup"]);
  });

  it("a description stuffed with many query words does not outrank a tool whose name matches", () => {
    const stuffed = Array.from({ length: 10 }, (_, n) => tool(`lookup_${n}`, "weather forecast city temperature rain wind humidity pressure", "flood"));
    const ranked = rankTools([...stuffed, tool("weather_report", "Report for a city.", "weather")], "weather forecast city temperature rain wind", 8);
    expect(ranked[0]!.name).toBe("weather_report");
    expect(ranked).toHaveLength(8);
  });

  it("one source takes at most half the answer while others match; the rest is filled from it when they run out", () => {
    const flood = Array.from({ length: 20 }, (_, n) => tool(`weather_forecast_${String(n).padStart(2, "0")}`, "Weather forecast.", "flood"));
    const ranked = rankTools([...flood, tool("get_weather", "Weather forecast for a city.", "weather")], "weather forecast", 8);
    expect(ranked).toHaveLength(8);
    expect(names(ranked)).toContain("get_weather");
    expect(ranked.filter((t) => t.source.id === "flood")).toHaveLength(7);
    // ranked by score: the four flood tools first taken, the genuine one, then the fill
    expect(names(ranked).slice(0, 4)).toEqual(["weather_forecast_00", "weather_forecast_01", "weather_forecast_02", "weather_forecast_03"]);

    const many = [
      ...flood,
      ...Array.from({ length: 6 }, (_, n) => tool(`weather_${n}`, "Weather forecast.", "mcp-a")),
      ...Array.from({ length: 6 }, (_, n) => tool(`forecast_${n}`, "Weather forecast.", "mcp-b")),
    ];
    const mixed = rankTools(many, "weather forecast", 8);
    expect(mixed.filter((t) => t.source.id === "flood")).toHaveLength(4);
    expect(mixed).toHaveLength(8);
  });

  it("MCP servers are sources too, told apart from plugins of the same id", () => {
    const server = (name: string) => ({ ...tool(name, "Search the files."), source: { kind: "mcp" as const, id: "p" } });
    const ranked = rankTools(
      [...Array.from({ length: 6 }, (_, n) => tool(`search_files_${n}`, "Search the files.")), server("search_files_x"), server("search_files_y")],
      "search files",
      4,
    );
    expect(ranked.filter((t) => t.source.kind === "mcp")).toHaveLength(2);
  });

  it("a query that is a tool's exact name ranks it first, even past the per-source share", () => {
    const flood = Array.from({ length: 10 }, (_, n) => tool(`get_weather_${n}`, "get weather get weather", "flood"));
    const ranked = rankTools([...flood, tool("get_weather", "x", "weather"), tool("weather_get", "y", "flood")], "get_weather", 2);
    expect(names(ranked)[0]).toBe("get_weather");
    expect(ranked).toHaveLength(2);
  });

  it("is deterministic: no match gives nothing, ties go by name", () => {
    const tools = [tool("zeta_tool", "does z"), tool("alpha_tool", "does a")];
    expect(rankTools(tools, "nothing-here", 8)).toEqual([]);
    expect(names(rankTools(tools, "tool", 8))).toEqual(["alpha_tool", "zeta_tool"]);
    expect(names(rankTools([...tools].reverse(), "tool", 8))).toEqual(["alpha_tool", "zeta_tool"]);
  });
});
