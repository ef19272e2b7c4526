import { afterEach, describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { runKeel } from "../../helpers/run-cli.js";
import { FAULT, nodeServer } from "./mcp-test-kit.js";
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

  it("keel call starts only the servers its tool needs: mcp__a__x starts a alone, a built-in tool starts none", async () => {
    // `hang` never answers initialize and has a 60 s start-up timeout: had it been started, the
    // first call would wait for it (and it would leave its pid file).
    ws = makeWorkspace({
      "a.txt": "hello",
      ".mcp.json": {
        mcpServers: {
          ok: nodeServer(FAULT, ["ok"], { env: { KEEL_MARK_FILE: "ok.marks" } }),
          other: nodeServer(FAULT, ["ok"], { env: { KEEL_MARK_FILE: "other.marks" } }),
          hang: { command: "node", args: ["-e", HANG], env: { MARK: "spawned.pid" }, startupTimeoutMs: 60_000 },
        },
      },
    });
    const echo = await runKeel(["--trust", "--yes", "--json", "call", "mcp__ok__echo", "--input", '{"message":"hi"}'], { cwd: ws.root, env: ws.env });
    expect(echo.json()).toMatchObject({ ok: true, content: "echo: hi" });
    expect(ws.read("ok.marks").trim().split("\n")).toHaveLength(1);
    expect(ws.exists("other.marks")).toBe(false);
    expect(ws.exists("spawned.pid")).toBe(false);
    const read = await runKeel(["--trust", "--json", "call", "read_file", "--input", '{"path":"a.txt"}'], { cwd: ws.root, env: ws.env });
    expect(read.json()).toMatchObject({ ok: true, content: "hello" });
    expect(ws.read("ok.marks").trim().split("\n")).toHaveLength(1);
    expect(ws.exists("other.marks")).toBe(false);
    expect(ws.exists("spawned.pid")).toBe(false);
    // Calling the other server's tool starts that server, and still not the hanging one.
    const other = await runKeel(["--trust", "--yes", "--json", "call", "mcp__other__echo", "--input", '{"message":"x"}'], { cwd: ws.root, env: ws.env });
    expect(other.json()).toMatchObject({ ok: true, content: "echo: x" });
    expect(ws.read("other.marks").trim().split("\n")).toHaveLength(1);
    expect(ws.read("ok.marks").trim().split("\n")).toHaveLength(1);
    expect(ws.exists("spawned.pid")).toBe(false);
  });

  it("a server that hung in start-up costs its timeout once: later commands skip it until `keel mcp restart`", async () => {
    // Each start appends the server's pid to starts.txt (a start killed before node ran adds nothing).
    const counting = "require('fs').appendFileSync('starts.txt', process.pid + '\\n'); setInterval(() => {}, 1000)";
    ws = makeWorkspace({ ".mcp.json": { mcpServers: { hang: { command: "node", args: ["-e", counting], startupTimeoutMs: 1500 } } } });
    const starts = () => (ws!.exists("starts.txt") ? ws!.read("starts.txt").trim().split("\n").length : 0);
    const first = await runKeel(["--trust", "--json", "mcp", "list"], { cwd: ws.root, env: ws.env });
    expect(first.json().servers[0]).toMatchObject({ name: "hang", state: "failed" });
    expect(first.json().servers[0].lastError).toMatch(/within 1500 ms/);
    const afterFirst = starts();
    const again = await runKeel(["--trust", "--json", "mcp", "list"], { cwd: ws.root, env: ws.env });
    expect(again.json().servers[0].state).toBe("failed");
    expect(again.json().servers[0].lastError).toMatch(/keel skips it until .*keel mcp restart hang/);
    const call = await runKeel(["--trust", "--yes", "--json", "call", "mcp_list_tools", "--input", "{}"], { cwd: ws.root, env: ws.env });
    expect(call.exitCode).toBe(0);
    const doctor = await runKeel(["--trust", "mcp", "doctor"], { cwd: ws.root, env: ws.env });
    expect(doctor.stdout).toMatch(/hint: it hung in start-up last time/);
    expect(starts()).toBe(afterFirst); // none of these commands started it (or waited for it) again
    // restart clears the back-off and really tries again (and times out again, so no skip message).
    const restart = await runKeel(["--trust", "--json", "mcp", "restart", "hang"], { cwd: ws.root, env: ws.env });
    expect(JSON.stringify(restart.json())).toMatch(/within 1500 ms/);
    expect(JSON.stringify(restart.json())).not.toMatch(/skips it/);
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
