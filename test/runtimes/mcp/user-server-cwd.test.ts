import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { nodeServer } from "./mcp-test-kit.js";

const PROBE = fileURLToPath(new URL("./fixtures/probe-server.mjs", import.meta.url));

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

describe("your own MCP servers in an untrusted workspace", () => {
  it("start outside the workspace, so its node_modules, .npmrc or Python modules cannot run as your server", async () => {
    // The repository ships a module that `node --require`, `npx` or `python -m` would pick up from the folder they start in.
    ws = makeWorkspace({
      "node_modules/zz-hook/package.json": { name: "zz-hook", version: "1.0.0", main: "index.js" },
      "node_modules/zz-hook/index.js": 'require("fs").writeFileSync(require("path").join(__dirname, "..", "..", "hooked.txt"), "ran");\n',
    });
    writeFileSync(
      join(ws.keelHome, "mcp.json"),
      JSON.stringify({ mcpServers: { probe: nodeServer(PROBE), preload: { command: process.execPath, args: ["--require", "zz-hook", PROBE] } } }),
    );
    const neutral = join(ws.keelHome, "state", "mcp", "cwd");

    const untrusted = await runKeel(["--yes", "call", "mcp__probe__write", "--input", '{"path":"where.txt"}'], { cwd: ws.root, env: ws.env });
    expect(untrusted.stdout).toContain("written");
    expect(ws.exists("where.txt")).toBe(false);
    expect(existsSync(join(neutral, "where.txt"))).toBe(true);
    await runKeel(["mcp", "list"], { cwd: ws.root, env: ws.env });
    expect(ws.exists("hooked.txt")).toBe(false);

    // Trusted, the workspace may run code: servers start in its root as documented.
    const trusted = await runKeel(["--trust", "--yes", "call", "mcp__probe__write", "--input", '{"path":"where.txt"}'], { cwd: ws.root, env: ws.env });
    expect(trusted.stdout).toContain("written");
    expect(ws.exists("where.txt")).toBe(true);
    await runKeel(["--trust", "mcp", "list"], { cwd: ws.root, env: ws.env });
    expect(ws.exists("hooked.txt")).toBe(true);
  });
});
