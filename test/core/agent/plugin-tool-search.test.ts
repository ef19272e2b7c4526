import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEvents } from "../../../core/events.js";
import { startOpenAIServer, type OpenAIServer } from "../../helpers/openai-server.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { openTestHost } from "../../helpers/test-host.js";

const WINDOW = 128_000;
const SHARE = 0.1;
const PLUGINS = 4;
const TOOLS_PER_PLUGIN = 1200;

/** A plugin of `count` virtual tools, each with a long description: together a manifest of most of 1 MiB. */
function bigPlugin(i: number) {
  const filler = "Looks things up in the archive of department records and returns a short summary of what it found. ".repeat(4);
  return {
    name: `big${i}`,
    virtual_tools: Array.from({ length: TOOLS_PER_PLUGIN }, (_, n) => ({
      name: `big${i}_record_${n}`,
      description: `Record ${n} of archive ${i}. ${filler}`,
      response_template: `record ${n}`,
      parameters: { type: "object", properties: { id: { type: "string", description: "The record id" } } },
    })),
  };
}

const WEATHER = {
  name: "weather",
  virtual_tools: [
    {
      name: "weather_forecast_city",
      description: "Weather forecast for a city.",
      response_template: "Forecast for {city}: sunny",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
    { name: "weather_history_city", description: "Weather history for a city.", response_template: "History of {city}", parameters: { type: "object" } },
    { name: "weather_secret_city", description: "Weather secrets for a city.", response_template: "secret", parameters: { type: "object" } },
  ],
  tool_aliases: [{ name: "forecast", base_tool: "weather_forecast_city", description: "Alias: weather forecast for a city." }],
  tool_hooks: { weather_forecast_city: { beforeTool: "Give temperatures in Celsius." } },
  blocked_tools: ["weather_secret_city"],
};

let server: OpenAIServer;
let ws: TempWorkspace;
beforeAll(async () => {
  server = await startOpenAIServer();
  const files: Record<string, object> = { "plugins/weather/plugin.json": WEATHER };
  for (let i = 0; i < PLUGINS; i++) files[`plugins/big${i}/plugin.json`] = bigPlugin(i);
  ws = makeWorkspace(files);
  ws.write("keel.config.json", {
    model: { name: "m", baseUrl: server.baseUrl, contextWindow: WINDOW },
    agent: { toolSearchShare: SHARE },
    permissions: { deny: ["weather_history_city"] },
  });
});
afterAll(async () => {
  await server.close();
  ws.cleanup();
});

describe("plugin virtual tools and aliases are deferred behind tool_search like MCP tools", () => {
  it(`with ${PLUGINS} plugins of ${TOOLS_PER_PLUGIN} virtual tools the request stays within the tool budget; tool_search loads a found tool, which runs through hooks and permissions`, async () => {
    const host = await openTestHost(ws, { trust: true });
    try {
      const virtual = host.registry.listing().filter((t) => t.source.kind === "plugin");
      expect(virtual.length).toBeGreaterThanOrEqual(PLUGINS * TOOLS_PER_PLUGIN);
      server.push(
        { toolCalls: [{ id: "s1", name: "tool_search", arguments: { query: "weather city" } }] },
        {
          toolCalls: [
            { id: "w1", name: "weather_forecast_city", arguments: { city: "Paris" } },
            { id: "h1", name: "weather_history_city", arguments: {} },
            { id: "x1", name: "weather_secret_city", arguments: {} },
          ],
        },
        { text: "Sunny in Paris." },
      );
      const before = server.requests.length;
      const out = await host.service("agent-runtime")!.start({ prompt: "Weather in Paris?", yes: true });
      expect(out.text).toBe("Sunny in Paris.");
      const [r1, r2, r3] = server.requests.slice(before);
      const events = readEvents(ws.path(".keel", "sessions", out.sessionId, "events.jsonl"));
      const call = events.find((e) => e.type === "model_call")!;

      // first request: within the budget, virtual tools and aliases held back, tool_search offered
      const names1 = r1!.tools!.map((t) => t.function.name);
      expect(names1).toContain("tool_search");
      expect(names1).toContain("read_file");
      expect(names1.filter((n) => n.startsWith("big") || n.startsWith("weather") || n === "forecast")).toEqual([]);
      expect(call.toolTokens as number).toBeLessThanOrEqual(SHARE * WINDOW);
      expect(call.deferredTools as number).toBeGreaterThanOrEqual(PLUGINS * TOOLS_PER_PLUGIN);
      expect(JSON.stringify(r1!.tools).length).toBeLessThanOrEqual(4 * SHARE * WINDOW);

      // tool_search finds the plugin tools (not the blocked one) and the next request offers them
      const found = r2!.messages.find((m) => m.tool_call_id === "s1")!.content!;
      expect(found).toContain("weather_forecast_city");
      expect(found).toContain("forecast");
      expect(found).not.toContain("weather_secret_city");
      const names2 = r2!.tools!.map((t) => t.function.name);
      expect(names2).toContain("weather_forecast_city");
      expect(names2).toContain("forecast");
      expect(names2).not.toContain("big0_record_1");
      expect(names2.length).toBeLessThan(names1.length + 10);

      // the found tool runs through the whole pipeline: its tool hook guides, a deny rule refuses, a block blocks
      const result = (id: string) => r3!.messages.find((m) => m.tool_call_id === id)!.content!;
      expect(result("w1")).toContain("Forecast for Paris: sunny");
      expect(r3!.messages.some((m) => m.content?.includes("Give temperatures in Celsius."))).toBe(true);
      expect(result("h1")).toMatch(/permission_denied/);
      expect(result("x1")).toMatch(/tool_not_visible|tool_blocked/);
      expect(events.find((e) => e.type === "tools_discovered")!.tools).toContain("weather_forecast_city");
    } finally {
      await host.close();
    }
  });

  it("an undiscovered virtual tool is not callable", async () => {
    const host = await openTestHost(ws, { trust: true });
    try {
      server.push({ toolCalls: [{ id: "u1", name: "big1_record_7", arguments: {} }] }, { text: "ok" });
      const before = server.requests.length;
      await host.service("agent-runtime")!.start({ prompt: "record 7", yes: true });
      const r2 = server.requests[before + 1]!;
      expect(r2.messages.find((m) => m.tool_call_id === "u1")!.content).toMatch(/tool_not_visible/);
    } finally {
      await host.close();
    }
  });

  it("keel context and keel tools mark the deferred plugin tools", async () => {
    const context = await runKeel(["--json", "--trust", "context"], { cwd: ws.root, env: ws.env });
    expect(context.exitCode).toBe(0);
    const report = JSON.parse(context.stdout) as { tools: { name: string; deferred: boolean }[]; totals: { toolTokens: number; deferredTools: number } };
    const row = (name: string) => report.tools.find((t) => t.name === name);
    expect(row("weather_forecast_city")?.deferred).toBe(true);
    expect(row("forecast")?.deferred).toBe(true);
    expect(row("read_file")?.deferred).toBe(false);
    expect(report.totals.deferredTools).toBeGreaterThanOrEqual(PLUGINS * TOOLS_PER_PLUGIN);
    expect(report.totals.toolTokens).toBeLessThanOrEqual(SHARE * WINDOW);

    const tools = await runKeel(["--json", "--trust", "tools"], { cwd: ws.root, env: ws.env });
    expect(tools.exitCode).toBe(0);
    const rows = (JSON.parse(tools.stdout) as { tools: { name: string; deferred?: boolean }[] }).tools;
    expect(rows.find((t) => t.name === "big2_record_3")?.deferred).toBe(true);
    expect(rows.find((t) => t.name === "forecast")?.deferred).toBe(true);
    expect(rows.find((t) => t.name === "tool_search")?.deferred).toBe(false);
    expect(rows.find((t) => t.name === "read_file")?.deferred).toBe(false);
    const text = await runKeel(["--trust", "tools"], { cwd: ws.root, env: ws.env });
    expect(text.stdout).toMatch(/weather_forecast_city \(deferred\)/);
    expect(text.stdout).toMatch(/\d+ MCP and plugin tools deferred/);
  });
});
