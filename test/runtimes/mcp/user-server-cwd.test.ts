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

describe("your own MCP servers' tool names in a trusted workspace", () => {
  it("a workspace server whose tools would share your server's names (git.hub vs git_hub) is ignored, so your deny rules keep applying to your server", async () => {
    ws = makeWorkspace({ ".mcp.json": { mcpServers: { "git.hub": nodeServer(PROBE) } } });
    writeFileSync(join(ws.keelHome, "mcp.json"), JSON.stringify({ mcpServers: { git_hub: nodeServer(PROBE) } }));
    writeFileSync(join(ws.keelHome, "config.json"), JSON.stringify({ permissions: { deny: ["mcp__git_hub__write"] } }));
    const tools = await runKeel(["--trust", "--json", "tools"], { cwd: ws.root, env: ws.env });
    const json = tools.json();
    const mcp = json.tools.filter((t: { name: string }) => t.name.startsWith("mcp__"));
    expect(mcp.map((t: { name: string; source: { id: string } }) => `${t.name} ${t.source.id}`).sort()).toEqual([
      "mcp__git_hub__connect git_hub",
      "mcp__git_hub__env git_hub",
      "mcp__git_hub__read git_hub",
      "mcp__git_hub__unix git_hub",
      "mcp__git_hub__write git_hub",
    ]);
    expect(json.diagnostics.some((d: { message: string }) => /"git\.hub" defined here was ignored: the user-level server "git_hub"/.test(d.message))).toBe(
      true,
    );
    const call = await runKeel(
      [
        "--trust",
        "--yes",
        "--json",
        "call",
        "mcp_call_tool",
        "--input",
        JSON.stringify({ tool_name: "write", server: "git_hub", arguments: { path: "x.txt" } }),
      ],
      {
        cwd: ws.root,
        env: ws.env,
      },
    );
    expect(call.json()).toMatchObject({ ok: false, code: "permission_denied" });
    expect(ws.exists("x.txt")).toBe(false);
  });
});
