import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startToolMenu } from "../../../core/agent/start-tool-menu.js";
import { readEvents } from "../../../core/events.js";
import { readSessionState } from "../../../core/session/session-store.js";
import { startOpenAIServer, type OpenAIServer, type ServerReply } from "../../helpers/openai-server.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { openTestHost } from "../../helpers/test-host.js";

const SHARE = 0.1;
/** Set in beforeAll: the window whose budget leaves room for about 6.5 found group tools next to the tools always offered. */
let WINDOW = 128_000;
const GROUPS = 8;

/** A plugin of GROUPS groups of 4 virtual tools `g<g>_tool_<k>` (~450 tokens each): `tool_search "g3"` finds group 3. */
function groupsPlugin() {
  const filler = "Looks things up in the archive of department records and returns a short summary of what it found. ".repeat(16);
  return {
    name: "groups",
    virtual_tools: Array.from({ length: GROUPS * 4 }, (_, i) => ({
      name: `g${Math.floor(i / 4)}_tool_${i % 4}`,
      description: `Record tool ${i % 4}. ${filler}`,
      response_template: `result of g${Math.floor(i / 4)}_tool_${i % 4}`,
      parameters: { type: "object", properties: {} },
    })),
  };
}

/** A plugin that tries to take every answer: 20 tools named after the words users search, descriptions stuffed with more. */
const FLOOD = {
  name: "flood",
  virtual_tools: Array.from({ length: 20 }, (_, n) => ({
    name: `weather_forecast_${String(n).padStart(2, "0")}`,
    description: "weather forecast city temperature rain wind humidity ".repeat(40),
    response_template: "flood",
    parameters: { type: "object" },
  })),
};
const WEATHER = {
  name: "weather",
  virtual_tools: [
    { name: "get_weather", description: "Weather forecast for a city.", response_template: "Sunny in {city}", parameters: { type: "object" } },
    { name: "city_report", description: "Report on a city: temperature and rain.", response_template: "report", parameters: { type: "object" } },
  ],
};

let server: OpenAIServer;
let ws: TempWorkspace;
beforeAll(async () => {
  server = await startOpenAIServer();
  ws = makeWorkspace({ "plugins/groups/plugin.json": groupsPlugin(), "plugins/flood/plugin.json": FLOOD, "plugins/weather/plugin.json": WEATHER });
  const config = () => ({ model: { name: "m", baseUrl: server.baseUrl, contextWindow: WINDOW }, agent: { toolSearchShare: SHARE } });
  ws.write("keel.config.json", config());
  const host = await openTestHost(ws, { trust: true });
  try {
    const { menu, estimator } = startToolMenu(host);
    const g = host.registry.listing().find((t) => t.name === "g0_tool_0")!;
    const perTool = estimator.tools([{ name: g.name, description: g.description, inputSchema: g.inputSchema }]);
    WINDOW = Math.ceil((menu.toolTokens + 6.5 * perTool) / SHARE);
  } finally {
    await host.close();
  }
  ws.write("keel.config.json", config());
});
afterAll(async () => {
  await server.close();
  ws.cleanup();
});

const search = (id: string, query: string, limit = 4): ServerReply => ({ toolCalls: [{ id, name: "tool_search", arguments: { query, limit } }] });
const call = (id: string, name: string): ServerReply => ({ toolCalls: [{ id, name, arguments: {} }] });

describe("tool_search: the found set stays within the tool budget", () => {
  it("drops the least recently found or used tools (never one called this turn), tells the model, and a dropped tool can be found again; resume sees the same set", async () => {
    const host = await openTestHost(ws, { trust: true });
    const before = server.requests.length;
    let sessionId: string;
    try {
      const agent = host.service("agent-runtime")!;
      // turn 1: find group 0 and use g0_tool_0
      server.push(search("s0", "g0"), call("c0", "g0_tool_0"), { text: "turn 1" });
      sessionId = (await agent.start({ prompt: "one", yes: true })).sessionId;
      // turn 2: use g1_tool_0, then search groups 2..7, then the dropped g0_tool_1 is not callable until found again
      const replies = [search("s1", "g1"), call("c1", "g1_tool_0")];
      for (let g = 2; g < GROUPS; g++) replies.push(search(`s${g}`, `g${g}`));
      replies.push(call("x1", "g0_tool_1"), search("again", "g0"), call("x2", "g0_tool_1"), { text: "turn 2" });
      server.push(...replies);
      expect((await agent.resume(sessionId, { prompt: "two", yes: true })).text).toBe("turn 2");
    } finally {
      await host.close();
    }
    const requests = server.requests.slice(before);
    const events = readEvents(ws.path(".keel", "sessions", sessionId, "events.jsonl"));
    const calls = events.filter((e) => e.type === "model_call");
    console.log(
      `found-tool bound: tool tokens per request ${calls.map((e) => e.toolTokens).join(" ")} (budget ${SHARE * WINDOW}, all tools ${calls[0]!.fullToolTokens})`,
    );
    // every request stays within the deferral budget: found tools are dropped instead of piling up
    for (const e of calls) expect(e.toolTokens as number).toBeLessThanOrEqual(SHARE * WINDOW);
    expect(calls[0]!.fullToolTokens as number).toBeGreaterThan(SHARE * WINDOW);

    const dropped = events.filter((e) => e.type === "tools_dropped");
    expect(dropped.length).toBeGreaterThan(0);
    const order = dropped.flatMap((e) => e.tools as string[]);
    // least recently found or used first: group 0's unused tools go before g0_tool_0, which turn 1 used
    expect(order.slice(0, 3).sort()).toEqual(["g0_tool_1", "g0_tool_2", "g0_tool_3"]);
    expect(order.indexOf("g0_tool_0")).toBeGreaterThan(2);
    // a tool called in this turn is never dropped; its group's other tools are
    expect(order).not.toContain("g1_tool_0");
    expect(order).toContain("g1_tool_1");
    for (const e of dropped) expect(e.budgetTokens as number).toBeLessThan(SHARE * WINDOW);

    // the model is told which tools were dropped, in the search result that dropped them
    const result = (id: string) => requests.flatMap((r) => r.messages).find((m) => m.tool_call_id === id)?.content ?? "";
    const told = requests.flatMap((r) => r.messages).filter((m) => m.role === "tool" && /no longer loaded: .*g0_tool_1/.test(m.content ?? ""));
    expect(told.length).toBeGreaterThan(0);
    expect(told[0]!.content).toMatch(/Search again to use one of them/);
    expect(result("x1")).toMatch(/tool_not_visible/);
    expect(result("x2")).toContain("result of g0_tool_1");

    // resume: a new process offers exactly the found set the session left
    const last = requests[requests.length - 1]!.tools!.map((t) => t.function.name);
    const state = await readSessionState(ws.path(".keel"), sessionId);
    expect(state.discoveredTools.sort()).toEqual(last.filter((n) => /^g\d_tool_\d$/.test(n)).sort());
    expect(state.discoveredTools).toContain("g0_tool_1");
    const host2 = await openTestHost(ws, { trust: true });
    try {
      server.push({ text: "turn 3" });
      const at = server.requests.length;
      await host2.service("agent-runtime")!.resume(sessionId, { prompt: "three", yes: true });
      expect(server.requests[at]!.tools!.map((t) => t.function.name).sort()).toEqual([...last].sort());
    } finally {
      await host2.close();
    }
  });

  it("one plugin cannot flood the answer: keyword-stuffed tools of one source take at most half of it while other tools match", async () => {
    const host = await openTestHost(ws, { trust: true });
    try {
      server.push(search("f1", "weather forecast city", 8), { text: "ok" });
      const before = server.requests.length;
      await host.service("agent-runtime")!.start({ prompt: "weather?", yes: true });
      const content = server.requests[before + 1]!.messages.find((m) => m.tool_call_id === "f1")!.content!;
      const found = [...content.matchAll(/^- ([^:]+):/gm)].map((m) => m[1]);
      expect(found).toHaveLength(8);
      expect(found).toContain("get_weather");
      expect(found).toContain("city_report");
      expect(found.filter((n) => n!.startsWith("weather_forecast_"))).toHaveLength(6);
      // a stuffed description shows its first 300 characters: it cannot push the other results past the output limit
      for (const line of content.split("\n").filter((l) => l.startsWith("- "))) expect(line.length).toBeLessThanOrEqual(340);
    } finally {
      await host.close();
    }
  });
});
