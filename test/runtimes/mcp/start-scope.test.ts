import { afterEach, describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { runKeel } from "../../helpers/run-cli.js";
import { openTestHost } from "../../helpers/test-host.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

/** A server that records its pid, never answers `initialize`, and ignores SIGTERM but records that it got one (MARK.term). */
const HANG =
  "const fs = require('fs'); fs.writeFileSync(process.env.MARK, String(process.pid)); process.on('SIGTERM', () => fs.writeFileSync(process.env.MARK + '.term', 'x')); setInterval(() => {}, 1000)";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, "utf8") : "";
    return !/\) Z /.test(stat);
  } catch {
    return false;
  }
}

async function waitFor(check: () => boolean, withinMs: number): Promise<void> {
  const until = Date.now() + withinMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`condition not met within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("which commands start MCP servers", () => {
  let ws: TempWorkspace | undefined;
  afterEach(() => {
    ws?.cleanup();
    ws = undefined;
  });

  const workspace = (startupTimeoutMs: number) =>
    makeWorkspace({
      "a.txt": "hello",
      "sub/.keep": "",
      ".mcp.json": { mcpServers: { hang: { command: "node", args: ["-e", HANG], env: { MARK: "spawned.pid" }, startupTimeoutMs } } },
    });

  it("commands that never call MCP tools (task, team, config, worktree, plugins) do not start servers", async () => {
    ws = workspace(60_000);
    for (const args of [["task", "list"], ["team", "list"], ["config", "list"], ["plugins"], ["workflow", "list"]]) {
      const r = await runKeel(["--trust", ...args], { cwd: ws.root, env: ws.env, timeout: 20_000 });
      expect(r.exitCode, `${args.join(" ")}: ${r.stderr}`).toBe(0);
    }
    expect(ws.exists("spawned.pid")).toBe(false);
  });

  it("a server hanging in initialize is killed as soon as its start-up times out, even if it ignores SIGTERM", async () => {
    ws = workspace(800);
    const host = await openTestHost(ws, { trust: true, cwd: ws.path("sub") });
    try {
      // Without a `cwd` the server starts in the workspace root (MARK is relative), whatever keel's cwd.
      const pid = Number(ws.read("spawned.pid"));
      expect(pid).toBeGreaterThan(0);
      // keel kills it itself (SIGKILL) right away. Left to the SDK's close, it would linger through a grace
      // period and then get SIGTERM first, which it records: it never got one.
      await waitFor(() => !alive(pid), 30_000);
      expect(ws.exists("spawned.pid.term")).toBe(false);
      const obs = await host.runTool({ tool: "read_file", input: { path: "../a.txt" } });
      expect(obs.content).toBe("hello");
    } finally {
      await host.close();
    }
  });
});
