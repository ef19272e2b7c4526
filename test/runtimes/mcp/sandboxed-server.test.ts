import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { closeAfterEach, openTestHost } from "../../helpers/test-host.js";

// Runs the real bubblewrap (installed by .ci/run).
const PROBE = fileURLToPath(new URL("./fixtures/probe-server.mjs", import.meta.url));
const NODE_MODULES = fileURLToPath(new URL("../../../node_modules", import.meta.url));

/**
 * Puts the probe server and (hard links to) its node_modules inside the workspace: the sandbox
 * gives the server a private /tmp, so a checkout of keel under /tmp would otherwise be invisible to it.
 */
function installProbe(dir: string): string {
  mkdirSync(dir, { recursive: true });
  copyFileSync(PROBE, join(dir, "server.mjs"));
  try {
    execFileSync("cp", ["-al", NODE_MODULES, join(dir, "node_modules")]);
  } catch {
    symlinkSync(NODE_MODULES, join(dir, "node_modules")); // another file system: not under the workspace's /tmp
  }
  return join(dir, "server.mjs");
}

let ws: TempWorkspace;
let host: Host | undefined;
let home: string | undefined;
closeAfterEach(() => ({ host, ws }));
afterEach(() => {
  if (home) rmSync(home, { recursive: true, force: true });
  home = undefined;
});

describe("a stdio MCP server with sandbox: true", () => {
  it("runs under bubblewrap: it can write the workspace but not outside it, and has no network with network: false", async () => {
    let connections = 0;
    const listener = createServer((s) => {
      connections++;
      s.end();
    });
    await new Promise<void>((r) => listener.listen(0, "127.0.0.1", r));
    const port = (listener.address() as AddressInfo).port;
    try {
      ws = makeWorkspace(
        {
          ".mcp.json": {
            mcpServers: {
              probe: { command: process.execPath, args: ["probe/server.mjs"], sandbox: true },
              free: { command: process.execPath, args: ["probe/server.mjs"] },
            },
          },
        },
        { git: true },
      );
      // Your config: the workspace's servers run unsandboxed unless they ask (only your level may say so).
      writeFileSync(join(ws.keelHome, "config.json"), JSON.stringify({ sandbox: { network: false, workspaceCommands: false } }));
      installProbe(ws.path("probe"));
      host = await openTestHost(ws, { trust: true, yes: true });
      // A folder of its own: the sandbox's private /tmp holds the mount point of the hidden $KEEL_HOME/config.json, not this folder.
      mkdirSync(join(ws.keelHome, "out"));
      const outside = join(ws.keelHome, "out", "escaped.txt");
      const call = async (tool: string, input: object) => (await host!.runTool({ tool, input }, { yes: true })).content;
      expect(await call("mcp__probe__write", { path: ws.path("inside.txt") })).toBe("written");
      expect(await call("mcp__probe__write", { path: outside })).toMatch(/^refused: (EROFS|ENOENT)$/); // outside: read-only, or hidden under the private /tmp
      expect(existsSync(outside)).toBe(false);
      expect(await call("mcp__probe__write", { path: ws.path(".git/config") })).toBe("refused: EROFS");
      expect(await call("mcp__probe__connect", { port })).toMatch(/^refused: /);
      expect(connections).toBe(0);
      // control: the same server without sandbox: true reaches both (workspaceCommands: false: MCP servers are sandboxed only on request)
      expect(await call("mcp__free__connect", { port })).toBe("connected");
      expect(connections).toBe(1);
    } finally {
      listener.close();
    }
  });
});

describe("a stdio MCP server with sandbox: true and the network on", () => {
  it("starts and answers under the seccomp filter: TCP reaches 127.0.0.1, an abstract Unix socket is refused (EPERM) and never connected", async () => {
    let unix = 0;
    const name = `\0keel-test-${process.pid}-${Math.random().toString(36).slice(2)}`;
    const abstract = createServer((s) => {
      unix++;
      s.end();
    });
    await new Promise<void>((r) => abstract.listen(name, r));
    const tcp = createServer((s) => s.end());
    await new Promise<void>((r) => tcp.listen(0, "127.0.0.1", r));
    try {
      ws = makeWorkspace(
        {
          ".mcp.json": {
            mcpServers: {
              probe: { command: process.execPath, args: ["probe/server.mjs"], sandbox: true },
              free: { command: process.execPath, args: ["probe/server.mjs"] },
            },
          },
        },
        { git: true },
      );
      writeFileSync(join(ws.keelHome, "config.json"), JSON.stringify({ sandbox: { workspaceCommands: false } }));
      installProbe(ws.path("probe"));
      host = await openTestHost(ws, { trust: true, yes: true });
      const call = async (tool: string, input: object) => (await host!.runTool({ tool, input }, { yes: true })).content;
      expect(await call("mcp__probe__connect", { port: (tcp.address() as AddressInfo).port })).toBe("connected");
      expect(await call("mcp__probe__unix", { address: name })).toBe("refused: EPERM");
      expect(unix).toBe(0);
      // control: the same server unsandboxed reaches it
      expect(await call("mcp__free__unix", { address: name })).toBe("connected");
      expect(unix).toBe(1);
    } finally {
      abstract.close();
      tcp.close();
    }
  });
});

describe("the workspace's stdio MCP servers under sandbox.workspaceCommands", () => {
  it("run sandboxed once the sandbox is on (your credential stores hidden, nothing written outside, caches in the private /tmp); your own server does not", async () => {
    // A home outside /tmp: the sandbox's private /tmp would hide one under it whole, and prove nothing.
    home = mkdtempSync("/var/tmp/keel-user-home-");
    mkdirSync(join(home, ".ssh"), { mode: 0o700 });
    writeFileSync(join(home, ".ssh", "id_ed25519"), "SSHSECRET\n");
    mkdirSync(join(home, "out"));
    ws = makeWorkspace({ ".mcp.json": { mcpServers: { repo: { command: process.execPath, args: ["probe/server.mjs"] } } } }, { git: true });
    const server = installProbe(ws.path("probe"));
    ws.writeUserConfig({ sandbox: "workspace-write" });
    writeFileSync(join(ws.keelHome, "mcp.json"), JSON.stringify({ mcpServers: { mine: { command: process.execPath, args: [server] } } }));
    host = await openTestHost(ws, { trust: true, yes: true, env: { ...ws.env, HOME: home } });
    const call = async (tool: string, input: object) => (await host!.runTool({ tool, input }, { yes: true })).content;
    const key = join(home, ".ssh", "id_ed25519");
    expect(await call("mcp__repo__read", { path: key })).toBe("refused: ENOENT"); // ~/.ssh is an empty folder inside
    expect(await call("mcp__repo__write", { path: join(home, "out", "repo.txt") })).toBe("refused: EROFS");
    expect(existsSync(join(home, "out", "repo.txt"))).toBe(false);
    expect(await call("mcp__repo__write", { path: ws.path("inside.txt") })).toBe("written");
    expect(await call("mcp__repo__env", { name: "npm_config_cache" })).toBe("/tmp/.npm");
    // Yours (\$KEEL_HOME/mcp.json) runs as before.
    expect(await call("mcp__mine__read", { path: key })).toBe("read: SSHSECRET\n");
    expect(await call("mcp__mine__write", { path: join(home, "out", "mine.txt") })).toBe("written");
    expect(await call("mcp__mine__env", { name: "npm_config_cache" })).toBe("(unset)");
    const rows = host.service("mcp")!.status();
    expect(rows.find((r) => r.name === "repo")?.sandboxed).toBe("workspace");
    expect(rows.find((r) => r.name === "mine")?.sandboxed).toBe(false);
  });

  it("its manifest's env is set inside the sandbox only: /bin/sh and bwrap, outside it, never get it (LD_PRELOAD would load the workspace's code there)", async () => {
    const value = "inside-only $(touch pwned) `touch pwned2` \\ \"q\" 'x'";
    const env = { KEEL_TEST_MANIFEST_VAR: value };
    ws = makeWorkspace({ ".mcp.json": { mcpServers: { repo: { command: process.execPath, args: ["probe/server.mjs"], env } } } }, { git: true });
    installProbe(ws.path("probe"));
    ws.writeUserConfig({ sandbox: "workspace-write" });
    host = await openTestHost(ws, { trust: true, yes: true });
    // Set back inside as it is: expanded, never evaluated.
    expect((await host.runTool({ tool: "mcp__repo__env", input: { name: "KEEL_TEST_MANIFEST_VAR" } }, { yes: true })).content).toBe(value);
    expect(ws.exists("pwned") || ws.exists("pwned2")).toBe(false);
    const mcp = host.service("mcp") as unknown as { connections: { name: string; pid?: number }[] };
    const pid = mcp.connections.find((c) => c.name === "repo")?.pid;
    expect(pid).toBeGreaterThan(0);
    // The spawned process: the shell that became bwrap, outside the sandbox (old code: it had the variable, as LD_PRELOAD would be).
    const outer = readFileSync(`/proc/${pid}/environ`, "latin1").split("\0");
    expect(outer.some((v) => v.startsWith("PATH="))).toBe(true);
    expect(outer.filter((v) => v.startsWith("KEEL_TEST_MANIFEST_VAR="))).toEqual([]);
    // Nor in its command line, which every user of the machine can read (`ps`): a manifest's env often holds a token.
    expect(readFileSync(`/proc/${pid}/cmdline`, "latin1")).not.toContain("inside-only");
  });

  it("a workspace's workspaceCommands: false is ignored with a warning; yours turns it off", async () => {
    home = mkdtempSync("/var/tmp/keel-user-home-");
    mkdirSync(join(home, "out"));
    ws = makeWorkspace(
      {
        ".mcp.json": { mcpServers: { repo: { command: process.execPath, args: ["probe/server.mjs"] } } },
        "keel.config.json": { sandbox: { workspaceCommands: false } },
      },
      { git: true },
    );
    installProbe(ws.path("probe"));
    ws.writeUserConfig({ sandbox: "workspace-write" });
    const outside = join(home, "out", "repo.txt");
    host = await openTestHost(ws, { trust: true, yes: true });
    expect(host.sandbox.workspaceCommands).toBe(true);
    expect(host.diagnostics.items).toContainEqual(
      expect.objectContaining({ path: "sandbox.workspaceCommands", message: expect.stringMatching(/^Ignored: only your own config/) }),
    );
    expect((await host.runTool({ tool: "mcp__repo__write", input: { path: outside } }, { yes: true })).content).toBe("refused: EROFS");
    await host.close();
    ws.writeUserConfig({ sandbox: { mode: "workspace-write", workspaceCommands: false } });
    host = await openTestHost(ws, { trust: true, yes: true });
    expect((await host.runTool({ tool: "mcp__repo__write", input: { path: outside } }, { yes: true })).content).toBe("written");
    expect(existsSync(outside)).toBe(true);
  });

  it("when bwrap cannot run, the workspace's server is not started (never unsandboxed), saying why", async () => {
    ws = makeWorkspace(
      {
        ".mcp.json": { mcpServers: { repo: { command: process.execPath, args: ["probe/server.mjs"] } } },
        "keel.config.json": { sandbox: { workspaceCommands: true } },
      },
      { git: true },
    );
    installProbe(ws.path("probe"));
    // A PATH without bwrap (the server is named by its absolute path, so only the sandbox is missing).
    const bin = join(ws.keelHome, "bin");
    mkdirSync(bin);
    host = await openTestHost(ws, { trust: true, yes: true, env: { ...ws.env, PATH: bin } });
    const row = host
      .service("mcp")!
      .status()
      .find((r) => r.name === "repo");
    expect(row).toMatchObject({ state: "failed", sandboxed: "workspace" });
    expect(row?.lastError).toMatch(/cannot run: .*bubblewrap .*not installed.*never runs it unsandboxed/);
    const obs = await host.runTool({ tool: "mcp__repo__write", input: { path: ws.path("ran.txt") } }, { yes: true });
    expect(obs.ok).toBe(false);
    expect(ws.exists("ran.txt")).toBe(false);
  });
});
