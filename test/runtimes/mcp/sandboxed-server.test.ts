import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
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
closeAfterEach(() => ({ host, ws }));

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
