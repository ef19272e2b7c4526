import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Host } from "../../../core/index.js";
import { ServerSupervisor } from "../../../runtimes/mcp/server-supervisor.js";
import { StderrRing } from "../../../runtimes/mcp/stderr-ring.js";
import { userServerStateFile } from "../../../runtimes/mcp/origin-state.js";
import { backingOff, HealthStore, STARTUP_BACKOFF_MS } from "../../../runtimes/mcp/server-health.js";
import { ToolCache } from "../../../runtimes/mcp/tool-cache.js";
import type { McpServerConfig } from "../../../manifests/mcp/mcp-server-config.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { FAULT, nodeServer } from "./mcp-test-kit.js";

let ws: TempWorkspace | undefined;
afterEach(() => {
  vi.restoreAllMocks();
  ws?.cleanup();
  ws = undefined;
});

const HOUR = 3600_000;

/** A workspace whose user-level $KEEL_HOME/mcp.json configures the fault fixture server as `mine`. */
function userServerWorkspace(): TempWorkspace {
  const w = makeWorkspace({});
  const userMcp = join(w.keelHome, "mcp.json");
  mkdirSync(dirname(userMcp), { recursive: true });
  writeFileSync(userMcp, JSON.stringify({ mcpServers: { mine: nodeServer(FAULT, ["ok"]) } }));
  return w;
}

describe("MCP health records and the clock", () => {
  it("a start-up back-off ending further ahead than a back-off lasts (the clock was put back) does not skip the server", async () => {
    ws = userServerWorkspace();
    // A start-up timeout recorded just now, then the clock was put back 3 hours (NTP, a restored VM): the record's
    // back-off ends 3 h 5 min from the new "now".
    const now = Date.now();
    const health = userServerStateFile(ws.keelHome, ws.root, "health");
    mkdirSync(dirname(health), { recursive: true });
    const record = { failures: [], breakerOpen: false, lastError: "start-up timed out", backoffUntil: now + 3 * HOUR + STARTUP_BACKOFF_MS };
    writeFileSync(health, JSON.stringify({ servers: { mine: record } }));
    const call = await runKeel(["--yes", "--json", "call", "mcp__mine__echo", "--input", '{"message":"hi"}'], { cwd: ws.root, env: ws.env });
    expect(call.stdout + call.stderr).not.toContain("keel skips it until"); // old code: skipped for 3 h 5 min
    expect(call.exitCode, call.stdout + call.stderr).toBe(0);
    expect(call.json().content).toBe("echo: hi");

    // A back-off this clock set (within its length) still holds.
    writeFileSync(health, JSON.stringify({ servers: { mine: { ...record, backoffUntil: Date.now() + STARTUP_BACKOFF_MS - 1000 } } }));
    const held = await runKeel(["--json", "mcp", "list"], { cwd: ws.root, env: ws.env });
    expect(held.json().servers).toMatchObject([{ name: "mine", state: "failed", lastError: expect.stringContaining("keel skips it until") }]);
  });

  it("failure times after now do not count towards the breaker, and a back-off is never recorded further ahead than its length", async () => {
    ws = makeWorkspace({});
    const file = ws.path(".keel/state/mcp/health.json");
    const now = Date.now();
    // Two failures recorded before the clock was put back an hour: one more failure now must not open the breaker.
    ws.write(".keel/state/mcp/health.json", { servers: { s: { failures: [now + HOUR, now + HOUR + 1], breakerOpen: false, backoffUntil: now + 2 * HOUR } } });
    const store = new HealthStore(file);
    const after = await store.recordFailure("s", "crashed", "", now);
    expect(after).toMatchObject({ failures: [now], breakerOpen: false }); // old code: three failures, breaker open
    expect(after.backoffUntil).toBeUndefined(); // old code: kept, 2 h ahead
    expect(JSON.parse(readFileSync(file, "utf8")).servers.s).toEqual(after);
    const timedOut = await store.recordFailure("s", "start-up timed out", "", now, true);
    expect(timedOut.backoffUntil).toBe(now + STARTUP_BACKOFF_MS);
    expect(backingOff(timedOut, now)).toBe(true);
    expect(backingOff(timedOut, now + STARTUP_BACKOFF_MS)).toBe(false);
    expect(backingOff({ ...timedOut, backoffUntil: now + STARTUP_BACKOFF_MS + 1 }, now)).toBe(false);
  });

  it("a record of the wrong shape reads as its well-typed fields only and never throws; the next failure writes a sound record", async () => {
    ws = makeWorkspace({});
    const file = ws.path(".keel/state/mcp/health.json");
    // breakerOpen "no" is a string, not true: no breaker (old code: truthy, the server was switched off)
    ws.write(".keel/state/mcp/health.json", {
      servers: { s: { failures: "many", breakerOpen: "no", lastError: 42, stderrTail: "x".repeat(100_000), backoffUntil: "soon" } },
    });
    const store = new HealthStore(file);
    const read = await store.get("s");
    expect(read).toEqual({ failures: [], breakerOpen: false, stderrTail: "x".repeat(16 * 1024) });
    expect(await store.get("constructor")).toEqual({ failures: [], breakerOpen: false }); // not Object.prototype's
    const now = Date.now();
    await store.recordFailure("s", "crashed", "tail", now);
    expect(JSON.parse(readFileSync(file, "utf8")).servers.s).toEqual({ failures: [now], breakerOpen: false, lastError: "crashed", stderrTail: "tail" }); // old code: left as it was
    ws.write(".keel/state/mcp/health.json", { servers: [1, 2] });
    expect(await store.get("s")).toEqual({ failures: [], breakerOpen: false });
  });

  it("a cached tool list saved after now (the clock was put back) is not fresh", async () => {
    ws = makeWorkspace({});
    const file = ws.path("tool-cache.json");
    const server = { name: "s", transport: "stdio", command: "node", args: ["srv.js"], env: {}, secrets: [] } as unknown as McpServerConfig;
    const cache = new ToolCache(file);
    await cache.put(server, [{ name: "t", inputSchema: { type: "object" } }]);
    const now = Date.now();
    expect(await new ToolCache(file).get(server, { maxAgeMs: HOUR, now })).toHaveLength(1);
    // saved "an hour from now" by the clock before it was put back: fresh for an hour more with the old code
    expect(await new ToolCache(file).get(server, { maxAgeMs: HOUR, now: now - HOUR })).toBeUndefined();
    // with no age asked (lazy servers), the entry is used whatever its time
    expect(await new ToolCache(file).get(server, { now: now - HOUR })).toHaveLength(1);
  });

  it("the delay before restarting a failed server is measured on the monotonic clock: a clock put back does not stretch it", async () => {
    ws = makeWorkspace({});
    // The clock is put back by replacing Date.now (a real clock jump needs root); the host is a stand-in with the
    // one member the supervisor uses here (its event sink); the health store is the real one on a real file.
    const host = { events: { emit: () => undefined } } as unknown as Host;
    const supervisor = new ServerSupervisor(
      "s",
      { host, health: new HealthStore(ws.path("health.json")) },
      { state: "idle", stderr: new StderrRing(), redact: (t) => t },
    );
    await supervisor.fail("crashed");
    const real = Date.now.bind(Date);
    vi.spyOn(Date, "now").mockImplementation(() => real() - HOUR);
    // Old code: waited 250 ms plus the hour the clock went back (the safety net below aborts it after 60 s).
    await expect(supervisor.beforeRestart(AbortSignal.timeout(60_000))).resolves.toBeUndefined();
  });
});
