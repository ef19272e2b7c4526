import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { startOpenAIServer, type OpenAIServer } from "../../helpers/openai-server.js";
import { runKeel, runKeelProcess, type CliRun } from "../../helpers/run-cli.js";
import type { TempWorkspace } from "../../helpers/temp-workspace.js";
import { openTestHost } from "../../helpers/test-host.js";
import { alive, mcpWorkspace, nodeServer, pidIn, waitFor } from "./mcp-test-kit.js";

/** The SDK server that answers `initialize` only once `<name>.gate` exists (see the fixture). */
const GATED = fileURLToPath(new URL("./fixtures/gated-server.mjs", import.meta.url));
const CACHE = ".keel/state/mcp/tool-cache.json";
const HEALTH = ".keel/state/mcp/health.json";

/** A gated server: pid in `<name>.pid`, gate `<name>.gate`, a 10-minute start-up timeout unless given. */
function gated(name: string, args: string[] = [], startupTimeoutMs = 600_000): Record<string, unknown> {
  return nodeServer(GATED, args, { env: { KEEL_GATE: `${name}.gate`, KEEL_PID_FILE: `${name}.pid` }, startupTimeoutMs });
}

let ws: TempWorkspace | undefined;
let host: Host | undefined;
let model: OpenAIServer | undefined;
afterEach(async () => {
  await host?.close();
  await model?.close();
  ws?.cleanup();
  host = model = ws = undefined;
});

const keel = (args: string[], env: NodeJS.ProcessEnv = {}) => runKeel(["--trust", ...args], { cwd: ws!.root, env: { ...ws!.env, ...env } });
const toolNames = (r: CliRun): string[] => r.json().tools.map((t: { name: string }) => t.name);
const cache = () => JSON.parse(ws!.read(CACHE));
const cachedNames = (server: string): string[] => cache().servers[server].tools.map((t: { name: string }) => t.name);
const health = () => (ws!.exists(HEALTH) ? JSON.parse(ws!.read(HEALTH)) : { servers: {} });

/**
 * Lets the servers start once (gates open) so keel caches their lists, then closes the gates (from
 * now on they hang in initialize) and adds `from_cache` to each cached list: a tool no server lists,
 * so seeing it proves a list came from the cache.
 */
async function seedCache(servers: string[]): Promise<void> {
  for (const s of servers) ws!.write(`${s}.gate`, "");
  const seeded = await keel(["--json", "tools"]);
  for (const s of servers) {
    expect(toolNames(seeded)).toContain(`mcp__${s}__echo`);
    expect(ws!.exists(`${s}.pid`)).toBe(true); // no cache yet: started and waited for
    rmSync(ws!.path(`${s}.gate`));
    rmSync(ws!.path(`${s}.pid`));
  }
  const data = cache();
  for (const s of servers) data.servers[s].tools.push({ name: "from_cache", description: "only in the cache", inputSchema: { type: "object" } });
  ws!.write(CACHE, data);
}

/** True once a session has recorded that it is executing `tool` (written before a non-read-only tool runs). */
function executing(tool: string): boolean {
  const dir = ws!.path(".keel/sessions");
  if (!ws!.exists(".keel/sessions")) return false;
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith("events.jsonl"))
    .some((f) =>
      readFileSync(join(dir, f), "utf8")
        .split("\n")
        .some((l) => l.includes('"type":"tool_execute"') && l.includes(`"tool":"${tool}"`)),
    );
}

describe("start in the background behind a fresh tool cache", () => {
  it("keel tools starts a server without a cache; with a fresh one it lists the cache and does not wait for a server hanging in initialize", async () => {
    ws = mcpWorkspace({ hang: gated("hang") });
    ws.write("hang.gate", "");
    const first = await keel(["--json", "tools"]);
    expect(first.json().tools.find((t: { name: string }) => t.name === "mcp__hang__echo")).toMatchObject({ readOnly: true });
    expect(cachedNames("hang")).toEqual(["echo", "ping_gate"]);
    rmSync(ws.path("hang.gate"));
    const data = cache();
    data.servers.hang.tools.push({ name: "from_cache", description: "only in the cache", inputSchema: { type: "object" } });
    ws.write(CACHE, data);
    // The server now hangs in initialize with a 10-minute start-up timeout: each command completes
    // only because it does not wait for it. Three in a row (the last as a whole process, which must
    // exit: nothing of the cancelled start keeps it alive); a cancelled start is no failure either.
    for (let i = 0; i < 3; i++) {
      const args = ["--trust", "--json", "tools"];
      const r = i < 2 ? await keel(args.slice(1)) : await runKeelProcess(args, { cwd: ws.root, env: ws.env });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(toolNames(r)).toEqual(expect.arrayContaining(["mcp__hang__echo", "mcp__hang__ping_gate", "mcp__hang__from_cache"]));
      // readOnlyHint is never taken from the cache: the tool asks until the server lists it live.
      expect(r.json().tools.find((t: { name: string }) => t.name === "mcp__hang__echo")).toMatchObject({ readOnly: false, risk: ["execute"] });
    }
    expect(health().servers.hang).toBeUndefined();
    if (ws.exists("hang.pid")) {
      const pid = await pidIn(ws, "hang.pid");
      await waitFor(() => !alive(pid));
    }
    expect(cachedNames("hang")).toEqual(["echo", "ping_gate", "from_cache"]); // the file is intact
  });

  it("a changed server config is not served from the cache: the server is started and waited for", async () => {
    ws = mcpWorkspace({ hang: gated("hang") });
    await seedCache(["hang"]);
    // One more argument: another fingerprint. Its gate is closed, so the awaited start times out.
    ws.write(".mcp.json", { mcpServers: { hang: gated("hang", ["v2"], 1500) } });
    const r = await keel(["--json", "tools"]);
    expect(toolNames(r).filter((n) => n.startsWith("mcp__hang__"))).toEqual([]);
    // It was started and waited for (whether the child got as far as writing its pid within the
    // timeout depends on the machine's load, so only the recorded start failure is asserted).
    expect(health().servers.hang.lastError).toMatch(/within 1500 ms/);
  });

  it("a cache entry older than a day is not fresh: the server is started and waited for", async () => {
    ws = mcpWorkspace({ hang: gated("hang") });
    await seedCache(["hang"]);
    const data = cache();
    data.servers.hang.savedAt = new Date(Date.now() - 2 * 24 * 3600_000).toISOString();
    ws.write(CACHE, data);
    ws.write(".mcp.json", { mcpServers: { hang: gated("hang", [], 1500) } }); // the timeout is not part of the fingerprint
    const r = await keel(["--json", "tools"]);
    expect(health().servers.hang.lastError).toMatch(/within 1500 ms/); // it was waited for
    // A server that failed to start keeps its last cached tools (as before).
    expect(toolNames(r)).toContain("mcp__hang__from_cache");
  });

  it("a call of a tool whose server is still starting waits for the start; then the registry is re-synced and toolsChanged fires", async () => {
    ws = mcpWorkspace({ slow: gated("slow") });
    await seedCache(["slow"]);
    host = await openTestHost(ws, { trust: true, yes: true, startServers: "background" });
    const changes: unknown[] = [];
    host.hooks.toolsChanged.tap("test", ({ source, added, removed }) => void changes.push({ source, added, removed }));
    expect(host.registry.has("mcp__slow__from_cache")).toBe(true);
    expect(host.registry.resolve("mcp__slow__echo")!.tool.readOnly).toBe(false);
    await waitFor(() => ws!.exists("slow.pid")); // spawned, waiting at its gate
    const call = host.runTool({ tool: "mcp__slow__echo", input: { message: "hi" } });
    // The call is recorded as executing before it runs (the cached definition is not read-only).
    await waitFor(() => ws!.exists(".keel/events.jsonl") && /"type":"tool_execute"[^\n]*"tool":"mcp__slow__echo"/.test(ws!.read(".keel/events.jsonl")));
    ws.write("slow.gate", "");
    expect(await call).toMatchObject({ ok: true, content: "echo: hi" });
    expect(host.registry.has("mcp__slow__from_cache")).toBe(false);
    expect(host.registry.resolve("mcp__slow__echo")!.tool.readOnly).toBe(true); // the server's own list now
    expect(changes).toEqual([{ source: "mcp:slow", added: [], removed: ["mcp__slow__from_cache"] }]);
    await host.close();
    host = undefined;
    expect(cachedNames("slow")).toEqual(["echo", "ping_gate"]);
  });

  it("closing the host cancels a start nobody waits for: the child is killed and no failure is recorded", async () => {
    ws = mcpWorkspace({ hang: gated("hang") });
    await seedCache(["hang"]);
    host = await openTestHost(ws, { trust: true, startServers: "background" });
    const pid = await pidIn(ws, "hang.pid"); // the child runs (and wrote its pid in full)
    expect(alive(pid)).toBe(true);
    await host.close();
    host = undefined;
    await waitFor(() => !alive(pid));
    expect(health().servers.hang).toBeUndefined();
    expect(cachedNames("hang")).toContain("from_cache");
  });

  it("keel run: the first request offers the cached tools while servers start; a call waits for its server; the next request has its live list", async () => {
    ws = mcpWorkspace({ slow: gated("slow"), hang: gated("hang") });
    await seedCache(["slow", "hang"]);
    model = await startOpenAIServer([{ toolCalls: [{ id: "c1", name: "mcp__slow__echo", arguments: { message: "hi" } }] }, { text: "done" }]);
    // A window large enough that no MCP tool is deferred behind tool_search (keel's own tools alone are ~6,400 tokens:
    // 10 % of 64,000 deferred them once glob's and grep's descriptions grew): this test is about start-up, not deferral.
    ws.write("keel.config.json", { model: { name: "local-model", baseUrl: model.baseUrl, contextWindow: 256000 } });
    const run = keel(["--yes", "--json", "run", "say hi"], { OPENAI_API_KEY: "test-key" });
    // Both gates are closed: no server can have finished start-up before the call has reached execute.
    await waitFor(() => executing("mcp__slow__echo"));
    ws.write("slow.gate", "");
    const r = await run;
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ reason: "answer", text: "done" });
    const menu = (i: number) => model!.requests[i]!.tools!.map((t) => t.function.name);
    expect(menu(0)).toEqual(expect.arrayContaining(["mcp__slow__echo", "mcp__slow__from_cache", "mcp__hang__echo", "mcp__hang__from_cache"]));
    expect(menu(1)).toContain("mcp__slow__echo");
    expect(menu(1)).not.toContain("mcp__slow__from_cache"); // re-synced from the server's live list
    expect(menu(1)).toContain("mcp__hang__from_cache"); // still starting: still the cache
    expect(JSON.stringify(model.requests[1]!.messages)).toContain("echo: hi");
    expect(health().servers.hang).toBeUndefined();
  });
});
