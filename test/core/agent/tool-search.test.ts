import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEvents } from "../../../core/events.js";
import { startOpenAIServer, type OpenAIServer } from "../../helpers/openai-server.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { openTestHost } from "../../helpers/test-host.js";

const EVERYTHING = fileURLToPath(new URL("../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));
const GENERATED = fileURLToPath(new URL("./fixtures/many-tools-server.mjs", import.meta.url));

let server: OpenAIServer;
let ws: TempWorkspace;
beforeAll(async () => {
  server = await startOpenAIServer();
  ws = makeWorkspace({
    ".mcp.json": {
      mcpServers: { everything: { command: process.execPath, args: [EVERYTHING] }, gen: { command: process.execPath, args: [GENERATED, "140"] } },
    },
  });
});
afterAll(async () => {
  await server.close();
  ws.cleanup();
});

async function firstRequest(share: number, prompt: string) {
  ws.write("keel.config.json", { model: { name: "m", baseUrl: server.baseUrl }, agent: { toolSearchShare: share } });
  const host = await openTestHost(ws, { trust: true });
  try {
    const mcpTools = host.registry.listing().filter((t) => t.source.kind === "mcp");
    const before = server.requests.length;
    const out = await host.service("agent-runtime")!.start({ prompt, yes: true });
    const events = readEvents(ws.path(".keel", "sessions", out.sessionId, "events.jsonl"));
    const call = events.find((e) => e.type === "model_call")!;
    return { out, mcpTools: mcpTools.length, estimated: call.estimatedTokens as number, requests: server.requests.slice(before), events };
  } finally {
    await host.close();
  }
}

describe("tool search over 150 MCP tools (server-everything + a generated server)", () => {
  it("cuts the first request's tokens by at least 60% and a deferred tool can be found and called", async () => {
    server.push({ text: "without search" });
    const full = await firstRequest(1, "What's the weather in Paris?");
    expect(full.mcpTools).toBeGreaterThanOrEqual(150);
    const fullTools = full.requests[0]!.tools!.length;
    expect(fullTools).toBeGreaterThanOrEqual(150);

    server.push(
      { toolCalls: [{ id: "s1", name: "tool_search", arguments: { query: "weather forecast" } }] },
      { toolCalls: [{ id: "w1", name: "mcp__gen__weather_forecast_city", arguments: { city: "Paris" } }] },
      { text: "Sunny in Paris." },
    );
    const lean = await firstRequest(0.1, "What's the weather in Paris?");
    expect(lean.out.text).toBe("Sunny in Paris.");
    const [r1, r2, r3] = lean.requests;
    const names1 = r1!.tools!.map((t) => t.function.name);
    expect(names1).toContain("tool_search");
    expect(names1).not.toContain("mcp__gen__weather_forecast_city");
    expect(lean.estimated).toBeLessThanOrEqual(full.estimated * 0.4);
    expect(JSON.stringify(r1!.tools).length).toBeLessThanOrEqual(JSON.stringify(full.requests[0]!.tools).length * 0.4);
    expect(r2!.messages.find((m) => m.tool_call_id === "s1")!.content).toContain("mcp__gen__weather_forecast_city");
    expect(r2!.tools!.map((t) => t.function.name)).toContain("mcp__gen__weather_forecast_city");
    expect(r3!.messages.find((m) => m.tool_call_id === "w1")!.content).toContain("Forecast for Paris: sunny");
    const ratio = 1 - lean.estimated / full.estimated;
    console.log(
      `tool search: first request ${full.estimated} → ${lean.estimated} estimated tokens (−${Math.round(ratio * 100)}%), ${fullTools} → ${names1.length} tools`,
    );
  });

  it("an undiscovered deferred tool is not callable", async () => {
    server.push({ toolCalls: [{ id: "x1", name: "mcp__gen__weather_forecast_city", arguments: { city: "Rome" } }] }, { text: "ok" });
    const run = await firstRequest(0.1, "weather in Rome");
    expect(run.requests[1]!.messages.find((m) => m.tool_call_id === "x1")!.content).toMatch(/tool_not_visible/);
  });
});
