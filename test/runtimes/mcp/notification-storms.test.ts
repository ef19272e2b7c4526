import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { NOTIFICATION_BURST, NOTIFICATIONS_PER_SECOND } from "../../../runtimes/mcp/notification-budget.js";
import { nodeServer } from "./mcp-test-kit.js";

const STORM = fileURLToPath(new URL("./fixtures/storm-server.mjs", import.meta.url));

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

function stormWorkspace(): TempWorkspace {
  const w = makeWorkspace();
  writeFileSync(join(w.keelHome, "mcp.json"), JSON.stringify({ mcpServers: { storm: nodeServer(STORM) } }));
  return w;
}

describe("a server that storms keel with notifications", () => {
  it("answering every tools/list with a list_changed does not make keel re-list in a busy loop", async () => {
    ws = stormWorkspace();
    const run = await runKeel(["--json", "call", "mcp__storm__count"], { cwd: ws.root, env: ws.env });
    expect(run.json()).toMatchObject({ ok: true });
    // One re-list a second at most: a few in the call's 1.5 s (before: thousands).
    expect(Number(run.json().content)).toBeLessThan(20);
  });

  it("a flood of log messages and progress notifications is cut to a bounded rate and size in events.jsonl", async () => {
    ws = stormWorkspace();
    const run = await runKeel(["--json", "call", "mcp__storm__flood"], { cwd: ws.root, env: ws.env });
    expect(run.json()).toMatchObject({ ok: true, content: "flooded" });
    const log = ws.read(".keel/events.jsonl");
    const events = log
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const fromServer = events.filter((e) => (e.type === "mcp_log" && e.logger !== "keel") || e.type === "mcp_progress");
    // 3000 of each were sent, 5000 characters apiece (30 MB of events.jsonl before). What was recorded is at most
    // the burst plus the refill over the time the records span (their own timestamps: no assumption about how fast
    // this machine is), plus one second's refill for timestamp rounding.
    expect(fromServer.length).toBeGreaterThan(0);
    const spanSeconds = (fromServer[fromServer.length - 1].ts - events[0].ts) / 1000;
    expect(fromServer.length).toBeLessThanOrEqual(NOTIFICATION_BURST + NOTIFICATIONS_PER_SECOND * (spanSeconds + 1));
    expect(fromServer.length).toBeLessThan(6000);
    expect(log.length).toBeLessThan(8_000_000);
    const logs = events.filter((e) => e.type === "mcp_log" && e.logger !== "keel");
    expect(logs.every((e) => JSON.stringify(e.data).length < 4200)).toBe(true);
    expect(logs[logs.length - 1].data).toMatch(/\[cut: \d+ characters in all\]$/);
    expect(events.some((e) => e.type === "mcp_log" && e.logger === "keel" && /notification\(s\) of MCP server "storm" were not recorded/.test(e.data))).toBe(
      true,
    );
  });

  it("a tools/list whose pages keep coming (each in time) ends within the start-up timeout, not after all of them", async () => {
    ws = makeWorkspace();
    writeFileSync(join(ws.keelHome, "mcp.json"), JSON.stringify({ mcpServers: { pages: nodeServer(STORM, ["pages"], { startupTimeoutMs: 6000 }) } }));
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on("warning", onWarning);
    const run = await runKeel(["--json", "mcp", "list"], { cwd: ws.root, env: ws.env }).finally(() => process.off("warning", onWarning));
    // each page has its own signal: the SDK's abort listeners do not pile up on one (Node warned of a leak past 10)
    expect(warnings).not.toContain("MaxListenersExceededWarning");
    const row = run.json().servers.find((s: { name: string }) => s.name === "pages");
    // 100 pages of 200 ms each would take 20 s (6 s leaves a loaded machine room for spawn and initialize).
    expect(row).toMatchObject({ state: "failed" });
    expect(row.lastError).toMatch(/did not finish start-up within 6000 ms \(tools\/list timed out: its pages did not all arrive within 6000 ms\)/);
  });
});
