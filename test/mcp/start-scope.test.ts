import { afterEach, describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

/** A server that records its pid, ignores SIGTERM and never answers `initialize`. */
const HANG = "require('fs').writeFileSync(process.env.MARK, String(process.pid)); process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, "utf8") : "";
    return !/\) Z /.test(stat);
  } catch {
    return false;
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

  it("a server hanging in initialize costs its start-up timeout, then is killed even if it ignores SIGTERM", async () => {
    ws = workspace(800);
    const t0 = Date.now();
    const r = await runKeel(["--trust", "--json", "--cwd", ws.root, "call", "read_file", "--input", '{"path":"a.txt"}'], { cwd: ws.keelHome, env: ws.env, timeout: 20_000 });
    const elapsed = Date.now() - t0;
    expect(r.json().content).toBe("hello");
    // Without a `cwd` the server starts in the workspace root (MARK is relative), whatever the process cwd.
    const pid = Number(ws.read("spawned.pid"));
    expect(alive(pid)).toBe(false);
    // The CLI must not wait for the SDK's multi-second close grace periods (2 s stdin + 2 s SIGTERM) on top of the timeout.
    expect(elapsed).toBeLessThan(800 + 3000);
  });
});
