import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Diagnostics } from "../../../core/diagnostics.js";
import { resolveWorkspace } from "../../../core/workspace.js";
import { discoverMcpServers } from "../../../manifests/mcp/discover-mcp-servers.js";
import { expandVars } from "../../../manifests/mcp/expand-vars.js";
import { assignToolNames, mcpToolName } from "../../../runtimes/mcp/tool-names.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

async function discover(files: Record<string, string | object>, opts: { cwd?: string; env?: NodeJS.ProcessEnv; handOffs?: any[] } = {}) {
  ws = makeWorkspace(files);
  const diagnostics = new Diagnostics();
  const env = { ...ws.env, ...opts.env };
  const workspace = resolveWorkspace(opts.cwd ? ws.path(opts.cwd) : ws.root, env);
  return { ...(await discoverMcpServers({ workspace, env, diagnostics, handOffs: opts.handOffs })), diagnostics: diagnostics.items };
}

describe("MCP manifest discovery", () => {
  it("reads both forms and every field", async () => {
    const r = await discover({
      ".mcp.json": {
        mcpServers: {
          a: {
            command: "node",
            args: ["x.js", 3],
            env: { K: "v" },
            cwd: "sub",
            enabledTools: ["echo*"],
            disabledTools: "echo_bad",
            startupTimeoutMs: 500,
            toolTimeoutMs: 900,
            lazy: true,
          },
        },
      },
      ".claw-mcp.json": {
        servers: [
          { name: "b", type: "http", url: "http://127.0.0.1:1/mcp", headers: { Authorization: "Bearer t" } },
          { name: "c", transport: "sse", url: "http://x/sse", disabled: true },
        ],
      },
    });
    expect(r.diagnostics).toEqual([]);
    expect(r.servers.map((s) => s.name)).toEqual(["b", "c", "a"]);
    const a = r.servers.find((s) => s.name === "a")!;
    expect(a).toMatchObject({
      transport: "stdio",
      command: "node",
      args: ["x.js", "3"],
      env: { K: "v" },
      cwd: join(ws!.root, "sub"),
      enabledTools: ["echo*"],
      disabledTools: ["echo_bad"],
      startupTimeoutMs: 500,
      toolTimeoutMs: 900,
      lazy: true,
      enabled: true,
      trustedByOrigin: false,
    });
    expect(r.servers[0]).toMatchObject({ transport: "http", headers: { Authorization: "Bearer t" } });
    expect(r.servers[1]).toMatchObject({ transport: "sse", enabled: false });
  });

  it("a key written into the path of a URL that also uses ${VAR} counts among the server's secrets", async () => {
    const key = "3f9a8c7e2b1d4f6a9c8e7b2a1d3f5e6c";
    const r = await discover(
      { ".mcp.json": { mcpServers: { r: { type: "http", url: `https://\${MCP_HOST}/mcp/${key}/sse` } } } },
      { env: { MCP_HOST: "mcp.example.com" } },
    );
    expect(r.servers[0]!.url).toBe(`https://mcp.example.com/mcp/${key}/sse`);
    expect(r.servers[0]!.secrets).toContain(key);
  });

  it("walks from cwd up to the workspace root, nearest first; a duplicate gets a diagnostic naming the winner", async () => {
    const r = await discover(
      {
        "mcp.json": { mcpServers: { dup: { command: "root-cmd" }, top: { command: "t" } } },
        "pkg/.mcp.json": { mcpServers: { dup: { command: "near-cmd" } } },
      },
      { cwd: "pkg" },
    );
    expect(r.servers.find((s) => s.name === "dup")!.command).toBe("near-cmd");
    expect(r.servers.map((s) => s.name)).toContain("top");
    const d = r.diagnostics.find((x) => /defined again/.test(x.message))!;
    expect(d.file).toBe(join(ws!.root, "mcp.json"));
    expect(d.path).toBe("mcpServers.dup");
    expect(d.message).toContain(join(ws!.root, "pkg", ".mcp.json"));
  });

  it("never reads above the workspace root", async () => {
    ws = makeWorkspace({});
    writeFileSync(join(ws.root, "..", ".mcp.json"), JSON.stringify({ mcpServers: { above: { command: "x" } } }));
    const workspace = resolveWorkspace(ws.root, ws.env);
    const r = await discoverMcpServers({ workspace, env: ws.env, diagnostics: new Diagnostics() });
    expect(r.servers).toEqual([]);
  });

  it("loads $KEEL_HOME/mcp.json as trusted user-level servers and plugin hand-offs by their level", async () => {
    ws = makeWorkspace({});
    mkdirSync(ws.keelHome, { recursive: true });
    writeFileSync(join(ws.keelHome, "mcp.json"), JSON.stringify({ mcpServers: { user: { command: "u" } } }));
    const workspace = resolveWorkspace(ws.root, ws.env);
    const handOffs = [
      {
        plugin: "p",
        manifestPath: ws.path(".claude-plugin/plugin.json"),
        root: ws.root,
        userLevel: false,
        mcpServers: { fromPlugin: { command: "p" } },
        workflows: [],
      },
    ];
    const r = await discoverMcpServers({ workspace, env: ws.env, diagnostics: new Diagnostics(), handOffs });
    expect(r.servers.map((s) => [s.name, s.origin.scope, s.trustedByOrigin])).toEqual([
      ["fromPlugin", "plugin", false],
      ["user", "user", true],
    ]);
  });

  it("a user-level server wins over a workspace server of the same name (case-insensitively); the workspace one gets a warning naming both files", async () => {
    ws = makeWorkspace({ ".mcp.json": { mcpServers: { fs: { command: "repo-fs" }, other: { command: "o" } } } });
    const userFile = join(ws.keelHome, "mcp.json");
    writeFileSync(userFile, JSON.stringify({ mcpServers: { Fs: { command: "user-fs" } } }));
    const workspace = resolveWorkspace(ws.root, ws.env);
    const diagnostics = new Diagnostics();
    const r = await discoverMcpServers({ workspace, env: ws.env, diagnostics });
    expect(r.servers.map((s) => [s.name, s.command, s.origin.scope, s.trustedByOrigin])).toEqual([
      ["Fs", "user-fs", "user", true],
      ["other", "o", "workspace", false],
    ]);
    const d = diagnostics.items.find((x) => x.file === ws!.path(".mcp.json"))!;
    expect(d).toMatchObject({ severity: "warning", source: "mcp", path: "mcpServers.fs" });
    expect(d.message).toContain(userFile);
    expect(d.message).toMatch(/user-level server "Fs".*a workspace may not replace a user-level server/);
  });

  it("a user-level plugin's server wins over a workspace plugin's and a workspace manifest's; within a level the first wins", async () => {
    ws = makeWorkspace({ ".mcp.json": { mcpServers: { GH: { command: "repo-gh" } } } });
    const workspace = resolveWorkspace(ws.root, ws.env);
    const handOffs = [
      {
        plugin: "repo",
        manifestPath: ws.path("plugins/repo/plugin.json"),
        root: ws.path("plugins/repo"),
        userLevel: false,
        mcpServers: { gh: { command: "repo-plugin-gh" }, only: { command: "r" } },
        workflows: [],
      },
      {
        plugin: "mine",
        manifestPath: join(ws.keelHome, "plugins/mine/plugin.json"),
        root: join(ws.keelHome, "plugins/mine"),
        userLevel: true,
        mcpServers: { gh: { command: "user-gh" } },
        workflows: [],
      },
      {
        plugin: "mine2",
        manifestPath: join(ws.keelHome, "plugins/mine2/plugin.json"),
        root: join(ws.keelHome, "plugins/mine2"),
        userLevel: true,
        mcpServers: { Gh: { command: "user-gh-2" } },
        workflows: [],
      },
    ];
    const diagnostics = new Diagnostics();
    const r = await discoverMcpServers({ workspace, env: ws.env, diagnostics, handOffs });
    expect(r.servers.map((s) => [s.name, s.command])).toEqual([
      ["gh", "user-gh"],
      ["only", "r"],
    ]);
    const messages = diagnostics.items.map((d) => [d.file, d.message.includes("a workspace may not replace a user-level server")]);
    expect(messages).toEqual([
      [ws.path("plugins/repo/plugin.json"), false],
      [ws.path(".mcp.json"), true],
      [join(ws.keelHome, "plugins/mine2/plugin.json"), false],
    ]);
  });

  it("invalid files and entries become diagnostics with file, path and reason; the rest loads", async () => {
    const r = await discover({
      ".mcp.json": {
        mcpServers: {
          good: { command: "ok" },
          noCmd: { args: ["x"] },
          badType: { type: "carrier-pigeon", command: "x" },
          badTimeout: { command: "x", startupTimeoutMs: -1 },
        },
      },
      ".codex-mcp.json": "{ not json",
      "mcp.json": { servers: [{ command: "nameless" }] },
    });
    expect(r.servers.map((s) => s.name)).toEqual(["good"]);
    const paths = r.diagnostics.map((d) => `${d.file?.split("/").pop()}:${d.path ?? ""}`);
    expect(paths).toEqual(
      expect.arrayContaining([
        ".mcp.json:mcpServers.noCmd.command",
        ".mcp.json:mcpServers.badType.type",
        ".mcp.json:mcpServers.badTimeout.startupTimeoutMs",
        ".codex-mcp.json:",
        "mcp.json:servers[0]",
      ]),
    );
    expect(r.diagnostics.find((d) => d.path === "mcpServers.badType.type")!.message).toMatch(/stdio.*http.*sse/);
  });

  it("expands ${VAR} and ${VAR:-default} in command, args, env, cwd, url and headers", async () => {
    const r = await discover(
      {
        ".mcp.json": {
          mcpServers: {
            s: { command: "${HOME}/bin/tool", args: ["--dir=${HOME}", "${MISSING_X:-fallback}"], env: { TOKEN: "${MY_TOKEN}" }, cwd: "${SUBDIR:-work}" },
            h: { url: "http://${HOST_X:-127.0.0.1}:1/mcp", headers: { Authorization: "Bearer ${MY_TOKEN}" } },
          },
        },
      },
      { env: { HOME: "/home/tester", MY_TOKEN: "s3cret" } },
    );
    const s = r.servers.find((x) => x.name === "s")!;
    expect(s.command).toBe("/home/tester/bin/tool");
    expect(s.args).toEqual(["--dir=/home/tester", "fallback"]);
    expect(s.env).toEqual({ TOKEN: "s3cret" });
    expect(s.cwd).toBe(join(ws!.root, "work"));
    expect(r.servers.find((x) => x.name === "h")).toMatchObject({ url: "http://127.0.0.1:1/mcp", headers: { Authorization: "Bearer s3cret" } });
  });

  it("an unset variable without default is a diagnostic naming server and variable; the server is marked not startable", async () => {
    const r = await discover({ ".mcp.json": { mcpServers: { gh: { command: "gh-mcp", env: { GITHUB_TOKEN: "${KEEL_TEST_UNSET_TOKEN}" } } } } });
    const d = r.diagnostics.find((x) => x.severity === "error")!;
    expect(d.message).toContain('"gh"');
    expect(d.message).toContain("${KEEL_TEST_UNSET_TOKEN}");
    expect(r.servers[0]!.unsetVars).toEqual(["KEEL_TEST_UNSET_TOKEN"]);
  });

  it("a hostile manifest repeating ${VAR} cannot expand your environment into hundreds of megabytes: the entry is skipped, named", async () => {
    // 2,000 × 3,000 characters here; a 1 MiB manifest writing ${LS_COLORS} 100,000 times made hundreds of megabytes.
    const big = "c".repeat(3000);
    const r = await discover(
      {
        ".mcp.json": {
          mcpServers: {
            many: { command: "srv", args: Array.from({ length: 2000 }, () => "${KEEL_TEST_BIG}") },
            wide: { command: "srv", env: { A: "${KEEL_TEST_BIG}".repeat(1000), B: "${KEEL_TEST_BIG}".repeat(1000) } },
            fine: { command: "srv", args: Array.from({ length: 100 }, () => "${KEEL_TEST_BIG}") },
          },
        },
      },
      { env: { KEEL_TEST_BIG: big } },
    );
    expect(r.servers.map((s) => s.name)).toEqual(["fine"]);
    const errors = r.diagnostics.filter((d) => d.severity === "error");
    expect(errors.map((d) => d.path)).toEqual(["mcpServers.many", "mcpServers.wide"]);
    expect(errors[0]!.message).toBe(
      'Invalid MCP server entry "many" (skipped): its ${VAR} references expand to more than 4194304 characters (${KEEL_TEST_BIG} among them); keel does not expand an entry that far. Reference each variable fewer times.',
    );
  });

  it("a string of 260,000 references to unset or empty variables is expanded (no call stack overflow): the diagnostic names the unset variable", async () => {
    const r = await discover(
      {
        ".mcp.json": {
          mcpServers: {
            refs: { command: "srv", env: { A: "${Q}".repeat(130_000), B: "${E}".repeat(130_000) } }, // just under the 1 MiB a manifest may take
          },
        },
      },
      { env: { E: "" } },
    );
    // Expanded to the end: the one thing wrong is the unset variable (it was "Maximum call stack size exceeded").
    expect(r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message)).toEqual([
      'MCP server "refs" uses unset environment variable ${Q} and will not be started. Export it or write ${Q:-default} in the manifest.',
    ]);
  });

  it("expandVars: empty value with :- takes the default; plain $VAR is left alone", () => {
    expect(expandVars("${E:-d} $E ${E}", { E: "" })).toEqual({ value: "d $E ", unset: [], secrets: [] });
  });
});

describe("MCP server names across levels (CLI)", () => {
  it("a user-level server Fs is used instead of the workspace's fs, with a warning naming both files", async () => {
    ws = makeWorkspace({ ".mcp.json": { mcpServers: { fs: { command: "repo-fs", disabled: true } } } });
    const userFile = join(ws!.keelHome, "mcp.json");
    writeFileSync(userFile, JSON.stringify({ mcpServers: { Fs: { command: "user-fs", disabled: true } } }));
    for (const extra of [[], ["--trust"]]) {
      const out = (await runKeel(["--json", ...extra, "mcp", "list"], { cwd: ws!.root, env: ws!.env })).json();
      expect(out.servers.map((s: { name: string; source: string }) => [s.name, s.source])).toEqual([["Fs", userFile]]);
      const warning = out.diagnostics.find((d: { file: string }) => d.file === ws!.path(".mcp.json"));
      expect(warning).toMatchObject({ severity: "warning", path: "mcpServers.fs" });
      expect(warning.message).toContain(userFile);
    }
  });
});

describe("tool names", () => {
  it("sanitizes to [A-Za-z0-9_-] and keeps names ≤ 64 with a stable hash suffix", () => {
    expect(mcpToolName("my server", "do.thing/now")).toBe("mcp__my_server__do_thing_now");
    const long = mcpToolName("s", "x".repeat(100));
    expect(long).toHaveLength(64);
    expect(long).toMatch(/^mcp__s__x+_[0-9a-f]{8}$/);
    expect(mcpToolName("s", "x".repeat(100))).toBe(long);
    expect(mcpToolName("s", "x".repeat(101))).not.toBe(long);
  });

  it("resolves collisions deterministically whatever the input order, reporting each rename", () => {
    const pairs = [
      { server: "a", tool: "x.y" },
      { server: "a", tool: "x_y" },
      { server: "b", tool: "t" },
    ];
    const seen: string[] = [];
    const one = assignToolNames(
      pairs,
      () => false,
      (t, c) => seen.push(`${t.tool}->${t.name} (${c})`),
    );
    const two = assignToolNames(
      [...pairs].reverse(),
      () => false,
      () => undefined,
    );
    expect(one).toEqual(two);
    expect(one.find((t) => t.tool === "x.y")!.name).toBe("mcp__a__x_y");
    expect(one.find((t) => t.tool === "x_y")!.name).toMatch(/^mcp__a__x_y_[0-9a-f]{8}$/);
    expect(seen).toHaveLength(1);
  });
});

describe("elicitation policy", () => {
  it("declines by default, cancels on `cancel`, and never asks without a terminal", async () => {
    const { policyElicitor } = await import("../../../runtimes/mcp/elicitation.js");
    const req = { server: "s", message: "name?" };
    const signal = new AbortController().signal;
    expect(await policyElicitor(undefined, false)(req, signal)).toEqual({ action: "decline" });
    expect(await policyElicitor("decline", true)(req, signal)).toEqual({ action: "decline" });
    expect(await policyElicitor("cancel")(req, signal)).toEqual({ action: "cancel" });
    expect(await policyElicitor("ask", false)(req, signal)).toEqual({ action: "decline" });
  });
});

describe("plugin hand-offs through the plugins service", () => {
  it("starts a user-level plugin's server without --trust and registers its tools", async () => {
    const { Host } = await import("../../../core/host.js");
    const { mcpRuntime } = await import("../../../runtimes/mcp/index.js");
    const { FAULT } = await import("../../runtimes/mcp/mcp-test-kit.js");
    ws = makeWorkspace({});
    const host = await Host.create({ cwd: ws.root, env: ws.env, config: {} });
    const handOff = {
      plugin: "helper",
      manifestPath: join(ws.keelHome, "plugins/helper/plugin.json"),
      root: join(ws.keelHome, "plugins/helper"),
      userLevel: true,
      mcpServers: { helper: { command: process.execPath, args: [FAULT, "ok"] } },
      workflows: [],
    };
    host.provide("plugins", { handOffs: () => [handOff] });
    try {
      await host.use(mcpRuntime());
      await host.init();
      expect(host.trusted).toBe(false);
      expect(host.registry.get("mcp__helper__echo")?.source).toEqual({ kind: "mcp", id: "helper" });
      expect((await host.runTool({ tool: "mcp__helper__echo", input: { message: "p" } }, { yes: true })).content).toBe("echo: p");
    } finally {
      await host.close();
    }
  });
});
