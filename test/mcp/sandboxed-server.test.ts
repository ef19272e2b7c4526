import { existsSync } from "node:fs";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { Host } from "../../core/host.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";
import { closeAfterEach, openTestHost } from "../helpers/test-host.js";

// Runs the real bubblewrap (installed by .ci/run).
const PROBE = fileURLToPath(new URL("./fixtures/probe-server.mjs", import.meta.url));

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
          ".mcp.json": { mcpServers: { probe: { command: process.execPath, args: [PROBE], sandbox: true }, free: { command: process.execPath, args: [PROBE] } } },
          "keel.config.json": { sandbox: { network: false } },
        },
        { git: true },
      );
      host = await openTestHost(ws, { trust: true, yes: true });
      const outside = join(ws.keelHome, "escaped.txt");
      const call = async (tool: string, input: object) => (await host!.runTool({ tool, input }, { yes: true })).content;
      expect(await call("mcp__probe__write", { path: ws.path("inside.txt") })).toBe("written");
      expect(await call("mcp__probe__write", { path: outside })).toMatch(/^refused: (EROFS|ENOENT)$/); // outside: read-only, or hidden under the private /tmp
      expect(existsSync(outside)).toBe(false);
      expect(await call("mcp__probe__write", { path: ws.path(".git/config") })).toBe("refused: EROFS");
      expect(await call("mcp__probe__connect", { port })).toMatch(/^refused: /);
      expect(connections).toBe(0);
      // control: the same server without sandbox: true reaches both (bash is sandboxed by config, MCP servers only on request)
      expect(await call("mcp__free__connect", { port })).toBe("connected");
      expect(connections).toBe(1);
    } finally {
      listener.close();
    }
  });
});
