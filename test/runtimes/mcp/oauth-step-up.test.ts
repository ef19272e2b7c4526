import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Host } from "../../../core/index.js";
import { mcpRuntime } from "../../../runtimes/mcp/index.js";
import { filesContaining } from "../../helpers/files-containing.js";
import { runKeel } from "../../helpers/run-cli.js";
import type { TempWorkspace } from "../../helpers/temp-workspace.js";
import { mcpWorkspace } from "./mcp-test-kit.js";
import { browserPlayer, startOAuthExample, type OAuthExampleServer } from "./oauth-example-server.js";

describe("MCP OAuth step-up (a tool of examples/oauth-mcp-server.mjs needs an extra scope)", () => {
  let server: OAuthExampleServer;
  let ws: TempWorkspace;
  const keel = (args: string[], extra: object = {}) => runKeel(args, { cwd: ws.root, env: ws.env, ...extra });
  const record = () => {
    const dir = join(ws.keelHome, "mcp-oauth");
    const [file] = readdirSync(dir).filter((f) => f.endsWith(".json"));
    return JSON.parse(readFileSync(join(dir, file!), "utf8"));
  };
  const login = async () => {
    const browser = browserPlayer();
    const r = await keel(["--trust", "--json", "mcp", "login", "scoped"], { onStderr: browser.onStderr });
    expect(browser.visited, r.stderr).toHaveLength(1);
    return { r, scope: new URL(browser.visited[0]!).searchParams.get("scope") };
  };

  beforeAll(async () => {
    server = await startOAuthExample(["--tool-scope", "admin_report=mcp:admin"]);
    ws = mcpWorkspace({ scoped: { type: "http", url: server.url } });
  });
  afterAll(async () => {
    await server?.stop();
    ws?.cleanup();
  });

  it("a 403 insufficient_scope fails the call, remembers the wider scope under KEEL_HOME, and the next login asks for the union", async () => {
    const first = await login();
    expect(first.r.json()).toMatchObject({ state: "connected", tools: 2 });
    expect(first.scope).toBe("mcp:tools");

    // Without a browser seam the call fails (no login is started from a tool call)...
    const refused = await keel(["--trust", "--yes", "--json", "call", "mcp__scoped__admin_report"]);
    expect(refused.exitCode).toBe(1);
    expect(refused.json()).toMatchObject({ ok: false, code: "execution_failed", metadata: { server_name: "scoped", required_scope: "mcp:tools mcp:admin" } });
    expect(refused.json().content).toContain("needs a wider authorization for this call (scopes: mcp:tools mcp:admin)");
    expect(refused.json().content).toContain("run `keel mcp login scoped`");
    // ...without spending the refresh token on it (a refresh cannot widen scopes)...
    expect((await server.log()).stats.refreshes).toBe(0);
    // ...and the wider scope is kept with the tokens under KEEL_HOME, never in the workspace.
    expect(record().requiredScope).toBe("mcp:tools mcp:admin");
    expect(filesContaining(ws.root, "requiredScope")).toEqual([]);

    // The token still serves the other tools; the server's hint says to log in again.
    const other = await keel(["--trust", "--yes", "--json", "call", "mcp__scoped__whoami"]);
    expect(other.json(), other.stdout).toMatchObject({ ok: true });
    const list = await keel(["--trust", "--json", "mcp", "list"]);
    const row = list.json().servers[0];
    expect(row.state).toBe("connected");
    expect(row.hint).toContain("a tool needs a wider authorization (scopes: mcp:tools mcp:admin): run `keel mcp login scoped` again");
    const human = await keel(["--trust", "mcp", "list"]);
    expect(human.stdout).toContain("scoped: a tool needs a wider authorization");

    // The next login asks for the old and the required scopes; then the tool works and the hint is gone.
    const second = await login();
    expect(second.r.json()).toMatchObject({ state: "connected", tools: 2 });
    expect(second.scope).toBe("mcp:tools mcp:admin");
    expect(record().requiredScope).toBeUndefined();
    expect(record().tokens.scope).toBe("mcp:tools mcp:admin");
    const granted = await keel(["--trust", "--yes", "--json", "call", "mcp__scoped__admin_report"]);
    expect(granted.json(), granted.stdout).toMatchObject({ ok: true });
    expect(granted.json().content).toContain("admin_report ran");
    const after = await keel(["--trust", "--json", "mcp", "list"]);
    expect(after.json().servers[0].hint).toBeUndefined();
  });

  it("a host that can show a browser steps up during the call: a new authorization for the union of scopes (no refresh), then the call is retried", async () => {
    const w = mcpWorkspace({ scoped: { type: "http", url: server.url } });
    const visited: string[] = [];
    const host = await Host.create({ cwd: w.root, env: w.env, trust: true, yes: true });
    try {
      await host.use(
        mcpRuntime({
          openUrl: async (url) => {
            visited.push(url.href);
            await fetch(url);
          },
        }),
      );
      await host.init();
      const before = (await server.log()).stats.refreshes;
      const obs = await host.runTool({ tool: "mcp__scoped__admin_report", input: {} });
      expect(obs, obs.content).toMatchObject({ ok: true });
      expect(obs.content).toContain("scopes: mcp:tools mcp:admin");
      expect(visited.map((u) => new URL(u).searchParams.get("scope"))).toEqual(["mcp:tools", "mcp:tools mcp:admin"]);
      expect((await server.log()).stats.refreshes).toBe(before);
    } finally {
      await host.close();
      w.cleanup();
    }
  });
});
