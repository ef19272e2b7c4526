import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { filesContaining } from "../../helpers/files-containing.js";
import { runKeel } from "../../helpers/run-cli.js";
import type { TempWorkspace } from "../../helpers/temp-workspace.js";
import { mcpWorkspace } from "./mcp-test-kit.js";
import { browserPlayer, startOAuthExample, type OAuthExampleServer } from "./oauth-example-server.js";

describe("MCP OAuth over the legacy SSE transport (examples/oauth-mcp-server.mjs at /mcp/sse)", () => {
  let server: OAuthExampleServer;
  let ws: TempWorkspace;
  const keel = (args: string[], extra: object = {}) => runKeel(args, { cwd: ws.root, env: ws.env, ...extra });

  beforeAll(async () => {
    server = await startOAuthExample();
    ws = mcpWorkspace({ legacy: { type: "sse", url: server.sseUrl } });
  });
  afterAll(async () => {
    await server?.stop();
    ws?.cleanup();
  });

  it("an sse server behind OAuth is needs_login; keel mcp login connects it over SSE; a tool call works; tokens stay under KEEL_HOME", async () => {
    const list = await keel(["--trust", "--json", "mcp", "list"]);
    expect(list.json().servers[0]).toMatchObject({ name: "legacy", state: "needs_login" });
    expect(list.json().servers[0].hint).toContain("keel mcp login legacy");

    const browser = browserPlayer();
    const login = await keel(["--trust", "--json", "mcp", "login", "legacy"], { onStderr: browser.onStderr });
    expect(browser.visited).toHaveLength(1);
    expect(login.json(), login.stderr).toMatchObject({ server: "legacy", state: "connected", tools: 1 });

    const call = await keel(["--trust", "--yes", "--json", "call", "mcp__legacy__whoami"]);
    expect(call.json(), call.stdout).toMatchObject({ ok: true });
    expect(call.json().content).toContain("scopes: mcp:tools");
    // It really went over SSE: the stream was opened and the call posted to the session's endpoint, with the token.
    const requests = (await server.log()).requests;
    expect(requests.some((q) => q.method === "GET" && q.path === "/mcp/sse" && q.headers.authorization?.startsWith("Bearer at-"))).toBe(true);
    expect(requests.some((q) => q.method === "POST" && q.path === "/mcp/messages" && q.body.includes('"tools/call"'))).toBe(true);
    expect(requests.some((q) => q.path === "/mcp" && q.method === "POST" && q.headers.authorization)).toBe(false);

    const dir = join(ws.keelHome, "mcp-oauth");
    const [file] = readdirSync(dir).filter((f) => f.endsWith(".json"));
    const record = JSON.parse(readFileSync(join(dir, file!), "utf8"));
    expect(record.serverUrl).toBe(server.sseUrl);
    expect(filesContaining(ws.root, record.tokens.access_token)).toEqual([]);
    expect(filesContaining(ws.root, record.tokens.refresh_token)).toEqual([]);
    expect(call.stdout + login.stdout + login.stderr).not.toContain(record.tokens.access_token);
  });
});
