import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KEEL_BIN, runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { alive, FAULT, nodeServer } from "./mcp-test-kit.js";

const TRACE = fileURLToPath(new URL("./fixtures/trace-sdk-loads.mjs", import.meta.url));

describe("keel mcp CLI", () => {
  let ws: TempWorkspace;
  const keel = (args: string[], env: NodeJS.ProcessEnv = {}) => runKeel(args, { cwd: ws.root, env: { ...ws.env, ...env } });
  const spawned = (file: string) => (existsSync(ws.path(file)) ? readFileSync(ws.path(file), "utf8").trim().split("\n").length : 0);
  beforeAll(() => {
    ws = makeWorkspace({});
    ws.write(".mcp.json", {
      mcpServers: {
        ok: nodeServer(FAULT, ["ok"], { env: { KEEL_MARK_FILE: ws.path("ok.marks") } }),
        lazy: nodeServer(FAULT, ["ok"], { lazy: true, env: { KEEL_MARK_FILE: ws.path("lazy.marks") } }),
        flaky: nodeServer(FAULT, ["exit-unless-file"], { env: { KEEL_OK_FILE: ws.path("flaky.ok"), KEEL_MARK_FILE: ws.path("flaky.marks") } }),
        missing: { command: "keel-no-such-command-xyz" },
        gh: { command: "gh-mcp", env: { GITHUB_TOKEN: "${KEEL_TEST_UNSET_GH_TOKEN}" } },
        off: { command: "never", enabled: false },
      },
    });
  });
  afterAll(() => ws?.cleanup());

  it("workspace servers are untrusted and not spawned without --trust", async () => {
    const r = await keel(["--json", "mcp", "list"]);
    // The user-level server gh failed (an unset variable): exit 1. Untrusted and disabled ones are no failure.
    expect(r.exitCode).toBe(1);
    const states = Object.fromEntries(r.json().servers.map((s: { name: string; state: string }) => [s.name, s.state]));
    expect(states).toMatchObject({ ok: "untrusted", lazy: "untrusted", flaky: "untrusted", off: "disabled", gh: "failed" });
    const tools = await keel(["--json", "tools"]);
    expect(tools.json().tools.some((t: { name: string }) => t.name.startsWith("mcp__"))).toBe(false);
    expect(spawned("ok.marks")).toBe(0);
    const bogus = await keel(["mcp", "bogus"]);
    expect(bogus.exitCode).toBe(2);
    expect(bogus.stderr).toContain('Unknown command "keel mcp bogus"');
    expect(spawned("ok.marks")).toBe(0);
    const human = await keel(["mcp"]);
    expect(human.stdout).toMatch(/untrusted/);
    expect(human.stdout).toMatch(/--trust/);
  });

  it("--trust (and KEEL_TRUST=1) start them; list shows state, tools, start-up time, source, errors", async () => {
    const r = await keel(["--trust", "--json", "mcp", "list"]);
    const byName = Object.fromEntries(r.json().servers.map((s: any) => [s.name, s]));
    expect(byName.ok).toMatchObject({ state: "connected", transport: "stdio", source: ws.path(".mcp.json") });
    expect(byName.ok.tools).toBeGreaterThan(5);
    expect(byName.ok.startupMs).toBeGreaterThan(0);
    expect(byName.missing.state).toBe("failed");
    expect(byName.missing.lastError).toMatch(/command not found/);
    expect(byName.gh.lastError).toMatch(/KEEL_TEST_UNSET_GH_TOKEN/);
    expect(r.json().diagnostics.some((d: any) => /KEEL_TEST_UNSET_GH_TOKEN/.test(d.message) && /"gh"/.test(d.message))).toBe(true);
    expect(spawned("ok.marks")).toBe(1);
    const pid = Number(readFileSync(ws.path("ok.marks"), "utf8").trim());
    expect(alive(pid)).toBe(false); // stopped when keel exited
    const env = await keel(["--json", "mcp", "list"], { KEEL_TRUST: "1" });
    expect(env.json().servers.find((s: any) => s.name === "ok").state).toBe("connected");
  });

  it("keel call mcp__server__tool works like any tool (exit 0 / 1)", async () => {
    const ok = await keel(["--trust", "--yes", "--json", "call", "mcp__ok__echo", "--input", '{"message":"hi"}']);
    expect(ok.exitCode).toBe(0);
    expect(ok.json()).toMatchObject({ ok: true, content: "echo: hi", metadata: { server_name: "ok" } });
    const bad = await keel(["--trust", "--yes", "--json", "call", "mcp__ok__fail"]);
    expect(bad.exitCode).toBe(1);
    expect(bad.json()).toMatchObject({ ok: false, code: "execution_failed", content: "something broke" });
  });

  it("lazy servers are registered from the cache and start on first call", async () => {
    rmSync(ws.path("lazy.marks"), { force: true });
    const tools = await keel(["--trust", "--json", "tools"]);
    expect(tools.json().tools.some((t: any) => t.name === "mcp__lazy__echo")).toBe(true);
    expect(spawned("lazy.marks")).toBe(0);
    const list = await keel(["--trust", "--json", "mcp", "list"]);
    expect(list.json().servers.find((s: any) => s.name === "lazy").state).toBe("lazy");
    const call = await keel(["--trust", "--yes", "--json", "call", "mcp__lazy__echo", "--input", '{"message":"wake"}']);
    expect(call.json().content).toBe("echo: wake");
    expect(spawned("lazy.marks")).toBe(1);
  });

  it("doctor times each step, shows the stderr tail and hints; exit 1 when a server fails", async () => {
    const r = await keel(["--trust", "mcp", "doctor"]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/✓ ok .*connected/);
    expect(r.stdout).toMatch(/spawn \d+ ms · initialize \d+ ms · tools\/list \d+ ms/);
    expect(r.stdout).toContain("fatal: KEEL_OK_FILE is missing");
    expect(r.stdout).toMatch(/hint: "keel-no-such-command-xyz" is not on PATH/);
    const one = await keel(["--trust", "--json", "mcp", "doctor", "ok"]);
    expect(one.exitCode).toBe(0);
    expect(one.json().servers).toHaveLength(1);
    expect(one.json().servers[0].timings.initializeMs).toBeGreaterThan(0);
  });

  it("repeated failures open the breaker across invocations until `keel mcp restart NAME`", async () => {
    // list (x1 earlier), list KEEL_TRUST (x2), tools/list/calls (more): by now the flaky server failed at least 3 times.
    const before = spawned("flaky.marks");
    const r = await keel(["--trust", "--json", "mcp", "list"]);
    const flaky = r.json().servers.find((s: any) => s.name === "flaky");
    expect(flaky.state).toBe("failed");
    expect(flaky.lastError).toMatch(/keel mcp restart flaky/);
    expect(spawned("flaky.marks")).toBe(before);
    writeFileSync(ws.path("flaky.ok"), "fixed");
    const restart = await keel(["--trust", "mcp", "restart", "FLAKY"]);
    expect(restart.exitCode).toBe(0);
    expect(restart.stdout).toMatch(/Restarted flaky: connected/);
    const after = await keel(["--trust", "--json", "mcp", "list"]);
    expect(after.json().servers.find((s: any) => s.name === "flaky").state).toBe("connected");
  });

  it("restart of an unknown server is a usage error (exit 2)", async () => {
    const r = await keel(["--trust", "mcp", "restart", "nope"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/Unknown MCP server "nope"/);
  });

  it("keel tools without MCP servers never loads the MCP SDK; with a trusted server it does", async () => {
    const empty = makeWorkspace({});
    try {
      const plain = await execa(process.execPath, ["--import", TRACE, KEEL_BIN, "--json", "tools"], {
        cwd: empty.root,
        env: empty.env,
        extendEnv: false,
        reject: false,
      });
      expect(plain.exitCode).toBe(0);
      expect(plain.stderr).not.toContain("[sdk-loaded]");
      const help = await execa(process.execPath, ["--import", TRACE, KEEL_BIN, "--help"], { cwd: empty.root, env: empty.env, extendEnv: false, reject: false });
      expect(help.stderr).not.toContain("[sdk-loaded]");
      const trusted = await execa(process.execPath, ["--import", TRACE, KEEL_BIN, "--trust", "--json", "tools"], {
        cwd: ws.root,
        env: ws.env,
        extendEnv: false,
        reject: false,
      });
      expect(trusted.exitCode, trusted.stderr).toBe(0);
      expect(trusted.stderr).toContain("[sdk-loaded]");
    } finally {
      empty.cleanup();
    }
  });
});
