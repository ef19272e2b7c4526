import { existsSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { openTestHost } from "../../helpers/test-host.js";
import type { TempWorkspace } from "../../helpers/temp-workspace.js";
import { FILESYSTEM, MEMORY, mcpWorkspace, nodeServer } from "./mcp-test-kit.js";

describe("server-filesystem and server-memory over stdio", () => {
  let ws: TempWorkspace;
  let host: Host;
  beforeAll(async () => {
    ws = mcpWorkspace(
      {
        fs: nodeServer(FILESYSTEM, ["${KEEL_TEST_WS_ROOT}/data"]),
        memory: nodeServer(MEMORY, [], { env: { MEMORY_FILE_PATH: "${KEEL_TEST_WS_ROOT}/.keel/memory.jsonl" } }),
      },
      { "data/hello.txt": "hello from the workspace" },
    );
    host = await openTestHost(ws, { trust: true, yes: true, env: { ...ws.env, KEEL_TEST_WS_ROOT: ws.root } });
  });
  afterAll(async () => {
    await host?.close();
    ws?.cleanup();
  });

  it("filesystem: reads a file in the allowed directory (expanded from ${VAR})", async () => {
    const obs = await host.runTool({ tool: "mcp__fs__read_text_file", input: { path: ws.path("data/hello.txt") } });
    expect(obs.ok).toBe(true);
    expect(obs.content).toBe("hello from the workspace");
  });

  it("filesystem: writes, and refuses paths outside its directories", async () => {
    const w = await host.runTool({ tool: "mcp__fs__write_file", input: { path: ws.path("data/new.txt"), content: "new" } });
    expect(w.ok).toBe(true);
    expect(readFileSync(ws.path("data/new.txt"), "utf8")).toBe("new");
    const outside = await host.runTool({ tool: "mcp__fs__read_text_file", input: { path: "/etc/hostname" } });
    expect(outside).toMatchObject({ ok: false, code: "execution_failed" });
    expect(outside.content).toMatch(/denied|outside|not allowed/i);
  });

  it("memory: entities persist to MEMORY_FILE_PATH in the temp dir", async () => {
    const c = await host.runTool({
      tool: "mcp__memory__create_entities",
      input: { entities: [{ name: "keel", entityType: "project", observations: ["hosts MCP servers"] }] },
    });
    expect(c.ok).toBe(true);
    const g = await host.runTool({ tool: "mcp__memory__read_graph", input: {} });
    expect(g.ok).toBe(true);
    expect(JSON.stringify(g.data ?? g.content)).toContain("hosts MCP servers");
    expect(existsSync(ws.path(".keel/memory.jsonl"))).toBe(true);
    expect(readFileSync(ws.path(".keel/memory.jsonl"), "utf8")).toContain("keel");
  });
});
