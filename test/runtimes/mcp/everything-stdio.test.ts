import { existsSync, symlinkSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { MemoryEventSink } from "../../../core/events.js";
import { openTestHost } from "../../helpers/test-host.js";
import { MCP_SERVICE } from "../../../runtimes/mcp/index.js";
import type { TempWorkspace } from "../../helpers/temp-workspace.js";
import { EVERYTHING, mcpWorkspace, nodeServer } from "./mcp-test-kit.js";

describe("server-everything over stdio", () => {
  let ws: TempWorkspace;
  let host: Host;
  const events = new MemoryEventSink();
  beforeAll(async () => {
    ws = mcpWorkspace(
      {
        everything: {
          ...nodeServer(EVERYTHING, ["stdio"], { env: { FROM_MANIFEST: "manifest-value" } }),
          resources: [
            { name: "notes", text: "local notes" },
            { name: "readme", path: "docs/readme.txt" },
            { name: "escape", path: "../outside.txt" },
            { name: "link", path: "docs/link.txt" },
          ],
        },
      },
      { "docs/readme.txt": "read me", "../outside.txt": "secret" },
    );
    symlinkSync("/etc/hostname", ws.path("docs/link.txt"));
    process.env.KEEL_TEST_HOST_SECRET = "do-not-leak";
    ws.env.LOGNAME = "keel-host-logname"; // the host's env, not process.env, supplies the safe variables
    host = await openTestHost(ws, { trust: true, yes: true, events });
  });
  afterAll(async () => {
    await host?.close();
    delete process.env.KEEL_TEST_HOST_SECRET;
    ws?.cleanup();
  });

  const call = (tool: string, input: unknown = {}) => host.runTool({ tool, input });

  it("registers the server's tools as mcp__everything__<tool> with server metadata", () => {
    const names = host.registry
      .list()
      .filter((t) => t.source.kind === "mcp")
      .map((t) => t.name);
    expect(names).toContain("mcp__everything__echo");
    expect(names).toContain("mcp__everything__get-sum");
    expect(names.every((n) => /^[A-Za-z0-9_-]{1,64}$/.test(n))).toBe(true);
  });

  it("echo returns `Echo: hi`", async () => {
    const obs = await call("mcp__everything__echo", { message: "hi" });
    expect(obs).toMatchObject({ ok: true, code: "ok", content: "Echo: hi" });
    expect(obs.metadata.server_name).toBe("everything");
  });

  it("get-sum adds 2 and 3", async () => {
    const obs = await call("mcp__everything__get-sum", { a: 2, b: 3 });
    expect(obs.content).toBe("The sum of 2 and 3 is 5.");
  });

  it("validates input against the server's schema before calling", async () => {
    const obs = await call("mcp__everything__get-sum", { a: "two", b: 3 });
    expect(obs).toMatchObject({ ok: false, phase: "validate", code: "schema_invalid" });
  });

  it("structured content becomes data", async () => {
    const obs = await call("mcp__everything__get-structured-content", { location: "Chicago" });
    expect(obs.ok).toBe(true);
    expect(obs.data).toMatchObject({ temperature: expect.any(Number), conditions: expect.any(String), humidity: expect.any(Number) });
  });

  it("an image goes to an artifact, never base64 in content", async () => {
    const obs = await call("mcp__everything__get-tiny-image");
    expect(obs.ok).toBe(true);
    expect(obs.artifacts).toHaveLength(1);
    expect(obs.artifacts[0]).toMatchObject({ kind: "image", mimeType: "image/png" });
    expect(existsSync(ws.path(obs.artifacts[0]!.path))).toBe(true);
    expect(obs.content).not.toMatch(/iVBORw0KGgo/);
    expect(obs.content).toContain("MCP logo");
  });

  it("resource links are listed in content and metadata", async () => {
    const obs = await call("mcp__everything__get-resource-links", { count: 2 });
    expect(obs.ok).toBe(true);
    expect(obs.content).toMatch(/\[resource link\].*demo:\/\//);
    expect((obs.metadata.resource_links as unknown[]).length).toBe(2);
  });

  it("lists and reads resources (server and local)", async () => {
    const list = await call("mcp_list_resources");
    expect(list.ok).toBe(true);
    const rows = (list.data as { resources: { server: string | null; uri: string; name: string }[] }).resources;
    const serverRow = rows.find((r) => r.server === "everything");
    expect(serverRow).toBeDefined();
    expect(rows.map((r) => r.name)).toEqual(expect.arrayContaining(["notes", "readme"]));
    const read = await call("mcp_read_resource", { uri: serverRow!.uri });
    expect(read.ok).toBe(true);
    expect(read.content.length + read.artifacts.length).toBeGreaterThan(0);
    expect((await call("mcp_read_resource", { uri: "notes" })).content).toBe("local notes");
    expect((await call("mcp_read_resource", { uri: "readme" })).content).toBe("read me");
  });

  it("refuses local resource paths outside the workspace", async () => {
    const obs = await call("mcp_read_resource", { uri: "escape" });
    expect(obs).toMatchObject({ ok: false, code: "permission_denied" });
    expect(obs.content).toMatch(/outside the workspace/);
  });

  it("refuses local resource paths that leave the workspace through a symlink", async () => {
    const obs = await call("mcp_read_resource", { uri: "link" });
    expect(obs).toMatchObject({ ok: false, code: "permission_denied" });
  });

  it("stdio servers get a minimal environment plus the manifest's env (no host secrets)", async () => {
    const obs = await call("mcp__everything__get-env");
    expect(obs.ok).toBe(true);
    expect(obs.content).toContain("manifest-value");
    expect(obs.content).toContain("PATH");
    expect(obs.content).toContain("keel-host-logname");
    expect(obs.content).not.toContain("do-not-leak");
  });

  it("generic tools: list, call (case-insensitive server), prompts", async () => {
    const tools = await call("mcp_list_tools", { query: "sum" });
    expect(tools.content).toContain("everything/get-sum");
    const viaGeneric = await call("mcp_call_tool", { tool_name: "echo", server: "EVERYTHING", arguments: { message: "yo" } });
    expect(viaGeneric.content).toBe("Echo: yo");
    const prompts = await call("mcp_list_prompts");
    const names = (prompts.data as { prompts: { name: string }[] }).prompts.map((p) => p.name);
    expect(names.length).toBeGreaterThan(0);
    const simple = names.find((n) => /simple/.test(n)) ?? names[0]!;
    const got = await call("mcp_get_prompt", { name: simple });
    expect(got.ok).toBe(true);
    expect(got.content).toMatch(/^user: /);
  });

  it("answers roots/list with the workspace root", async () => {
    const obs = await call("mcp__everything__get-roots-list");
    expect(obs.ok).toBe(true);
    expect(obs.content).toContain(ws.root);
  });

  it("asks a tool for progress on its first call and later only if it reported some (or when the caller insists)", async () => {
    const progressOf = (obs: { metadata: Record<string, unknown> }) =>
      events.events.filter((e) => e.type === "mcp_progress" && e.callId === obs.metadata.callId);
    const conn = host.service(MCP_SERVICE)!.find("everything")!;
    const input = { duration: 0.3, steps: 3 };
    const first = await call("mcp__everything__trigger-long-running-operation", input);
    expect(first.ok).toBe(true);
    expect(progressOf(first)[0]).toMatchObject({ server: "everything", tool: "trigger-long-running-operation", total: 3 });
    expect(conn.reportsProgress.get("trigger-long-running-operation")).toBe(true);
    const again = await host.runTool({ tool: "mcp__everything__trigger-long-running-operation", input }, { signal: new AbortController().signal });
    expect(progressOf(again).length).toBeGreaterThanOrEqual(1);
    // echo reports nothing when asked: later calls carry no progress token
    expect((await call("mcp__everything__echo", { message: "a" })).ok).toBe(true);
    expect(conn.reportsProgress.get("echo")).toBe(false);
    const declined = await host.runTool({ tool: "mcp__everything__trigger-long-running-operation", input }, { progress: false });
    expect(declined.ok).toBe(true);
    expect(progressOf(declined)).toEqual([]);
  });

  it("elicitation is declined by default", async () => {
    const obs = await call("mcp__everything__trigger-elicitation-request");
    expect(obs.content.toLowerCase()).toMatch(/decline/);
    expect(events.events.some((e) => e.type === "mcp_elicitation" && e.action === "decline")).toBe(true);
  });
});
