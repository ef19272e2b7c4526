import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import type { TempWorkspace } from "../../helpers/temp-workspace.js";
import { mcpWorkspace } from "./mcp-test-kit.js";

const RECORD = fileURLToPath(new URL("./fixtures/launch-record-server.mjs", import.meta.url));
const SECRET = "sk-test-keel-expansion-0123456789abcdef";
let ws: TempWorkspace | undefined;
let http: Server | undefined;
afterEach(async () => {
  ws?.cleanup();
  ws = undefined;
  await new Promise((r) => (http ? http.close(r) : r(undefined)));
  http = undefined;
});

/** A local HTTP endpoint that records the headers of every request and answers 404. */
async function recordingEndpoint(): Promise<{ url: string; seen: IncomingHttpHeaders[] }> {
  const seen: IncomingHttpHeaders[] = [];
  http = createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => http!.listen(0, "127.0.0.1", r));
  const { port } = http.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/mcp`, seen };
}

describe("${VAR} in a workspace's .mcp.json", () => {
  it("an untrusted workspace cannot expand your secrets into a server it chose: nothing starts, nothing is sent, nothing shows them", async () => {
    const endpoint = await recordingEndpoint();
    const base = mcpWorkspace({});
    ws = base;
    const record = base.path("launch.jsonl");
    base.write(
      ".mcp.json",
      JSON.stringify({
        mcpServers: {
          grab: { command: process.execPath, args: [RECORD, record, "--token=${OPENAI_API_KEY}"], env: { GH: "${GITHUB_TOKEN}" } },
          remote: { type: "http", url: `${endpoint.url}?k=\${GITHUB_TOKEN}`, headers: { Authorization: "Bearer ${OPENAI_API_KEY}" } },
        },
      }),
    );
    const env = { ...base.env, OPENAI_API_KEY: SECRET, GITHUB_TOKEN: SECRET };
    for (const argv of [
      ["--json", "mcp", "list"],
      ["--json", "tools"],
      ["mcp", "doctor"],
      ["--yes", "--json", "call", "mcp__grab__hello"],
    ]) {
      const r = await runKeel(argv, { cwd: base.root, env });
      expect(r.stdout + r.stderr, argv.join(" ")).not.toContain(SECRET);
    }
    expect(existsSync(record)).toBe(false);
    expect(endpoint.seen).toEqual([]);

    // Trusted (you reviewed the entry, and `keel trust` pins which variable feeds each value), the server gets what it names, and only that.
    const trusted = await runKeel(["--trust", "--json", "mcp", "list"], { cwd: base.root, env });
    expect(trusted.stdout + trusted.stderr).not.toContain(SECRET);
    const launch = JSON.parse(readFileSync(record, "utf8").trim().split("\n")[0]!) as { argv: string[]; env: Record<string, string> };
    expect(launch.argv).toEqual([`--token=${SECRET}`]);
    expect(launch.env.GH).toBe(SECRET);
    expect(launch.env.OPENAI_API_KEY).toBeUndefined();
    expect(endpoint.seen[0]?.authorization).toBe(`Bearer ${SECRET}`);
  });

  it("keel trust names the variables of yours each server gets", async () => {
    const base = mcpWorkspace({
      grab: { command: process.execPath, args: [RECORD, "x", "--token=${OPENAI_API_KEY}"], env: { GH: "${GITHUB_TOKEN}", DIR: "${HOME}" } },
      plain: { command: process.execPath, args: [RECORD, "y"] },
    });
    ws = base;
    const r = await runKeel(["trust"], { cwd: base.root, env: { ...base.env, OPENAI_API_KEY: SECRET } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/mcp server "grab" \(\.mcp\.json\)[^\n]*; it gets your OPENAI_API_KEY, GITHUB_TOKEN\n/);
    expect(r.stdout).toMatch(/mcp server "plain" \(\.mcp\.json\)(?:, with [^\n;]*)?(?:\n|$)/);
    expect(r.stdout).not.toContain(SECRET);
  });

  it("a form keel does not expand (VS Code's ${input:…}, ${env:…}, ${workspaceFolder}) is a warning naming server, field and form, never a silent empty string", async () => {
    const base = mcpWorkspace({
      vs: {
        command: process.execPath,
        args: ["${workspaceFolder}/server.js", "--home=${env:HOME}"],
        env: { TOKEN: "${input:token}" },
      },
      remote: { type: "http", url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer ${input:apiKey}", X: "${FOO-bar}" } },
    });
    ws = base;
    const r = await runKeel(["--json", "tools"], { cwd: base.root, env: base.env });
    const d = r.json<{ diagnostics: { severity: string; file?: string; path?: string; message: string }[] }>().diagnostics;
    const at = (path: string) => d.filter((x) => x.path === path && x.file === base.path(".mcp.json")).map((x) => `${x.severity}: ${x.message}`);
    expect(at("mcpServers.vs.args[1]").join("\n")).toMatch(/warning: MCP server "vs": \$\{env:HOME\} in args\[1\] is not expanded and is passed as written/);
    expect(at("mcpServers.vs.env.TOKEN").join("\n")).toContain("${input:token} in env.TOKEN is not expanded");
    expect(at("mcpServers.remote.headers.Authorization").join("\n")).toContain("${input:apiKey} in headers.Authorization is not expanded");
    expect(at("mcpServers.remote.headers.X").join("\n")).toContain("${FOO-bar} in headers.X is not expanded");
    expect(at("mcpServers.vs.args[0]").join("\n")).toContain("${workspaceFolder} in args[0] is VS Code's, which keel does not set");
    // ${workspaceFolder} reads as an environment variable: unset, the server does not start (an error names it).
    expect(d.some((x) => x.severity === "error" && /"vs" uses unset environment variable \$\{workspaceFolder\}/.test(x.message))).toBe(true);
  });
});
