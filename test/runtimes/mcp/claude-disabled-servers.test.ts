import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import type { TempWorkspace } from "../../helpers/temp-workspace.js";
import { mcpWorkspace, nodeServer } from "./mcp-test-kit.js";

const NAMED = fileURLToPath(new URL("./fixtures/named-tools-server.mjs", import.meta.url));
let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

/** A named-tools server offering `ping`, appending its pid to `<label>.marks` at each start. */
function server(w: { path(...p: string[]): string } | string, label: string) {
  const marks = typeof w === "string" ? w : w.path(`${label}.marks`);
  return nodeServer(NAMED, [label], { env: { KEEL_TOOLS: '["ping"]', KEEL_MARK_FILE: marks } });
}

interface Row {
  name: string;
  state: string;
  hint?: string;
}

describe("Claude Code's disabledMcpjsonServers", () => {
  it("keeps the named .mcp.json servers from starting at every level, accumulating; your own servers are not the repository's to name", async () => {
    const base = mcpWorkspace({});
    ws = base;
    base.write(".mcp.json", JSON.stringify({ mcpServers: { tracker: server(base, "tracker"), docs: server(base, "docs"), other: server(base, "other") } }));
    base.write(".claude/settings.json", { disabledMcpjsonServers: ["tracker", "mine"] });
    // A later file cannot turn a server back on: the lists accumulate.
    base.write(".claude/settings.local.json", { disabledMcpjsonServers: [] });
    base.write("pkg/.claude/settings.json", { disabledMcpjsonServers: ["DOCS"] });
    writeFileSync(join(base.keelHome, "mcp.json"), JSON.stringify({ mcpServers: { mine: server(base.path("mine.marks"), "mine") } }));
    const cwd = base.path("pkg");
    const r = await runKeel(["--trust", "--json", "mcp", "list"], { cwd, env: base.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const byName = Object.fromEntries(r.json<{ servers: Row[] }>().servers.map((s) => [s.name, s]));
    expect(byName.tracker!.state).toBe("disabled");
    expect(byName.docs!.state).toBe("disabled");
    expect(byName.other!.state).toBe("connected");
    expect(byName.mine!.state).toBe("connected");
    expect(base.exists("tracker.marks")).toBe(false);
    expect(base.exists("docs.marks")).toBe(false);
    expect(r.json<{ diagnostics: { message: string }[] }>().diagnostics.some((d) => /disabledMcpjsonServers/.test(d.message))).toBe(false);

    const human = await runKeel(["--trust", "mcp", "list"], { cwd, env: base.env });
    expect(human.stdout).toContain(`tracker: disabled by ${base.path(".claude", "settings.json")} (disabledMcpjsonServers)`);
    expect(byName.docs!.hint).toContain(`${base.path("pkg", ".claude", "settings.json")} (disabledMcpjsonServers)`);

    const tools = await runKeel(["--trust", "--json", "tools"], { cwd, env: base.env });
    const names = tools.json<{ tools: { name: string }[] }>().tools.map((t) => t.name);
    expect(names).toContain("mcp__other__ping");
    expect(names).toContain("mcp__mine__ping");
    expect(names.filter((n) => /^mcp__(tracker|docs)__/.test(n))).toEqual([]);
    const call = await runKeel(["--trust", "--yes", "--json", "call", "mcp__tracker__ping"], { cwd, env: base.env });
    expect(call.json<{ ok: boolean; code: string }>()).toMatchObject({ ok: false, code: "unknown_tool" });
    expect(base.exists("tracker.marks")).toBe(false);
  });

  it("a value that is not a list of names is a warning naming file and field; its names still apply", async () => {
    const base = mcpWorkspace({});
    ws = base;
    base.write(".mcp.json", JSON.stringify({ mcpServers: { tracker: server(base, "tracker") } }));
    base.write(".claude/settings.json", { disabledMcpjsonServers: "tracker" });
    const r = await runKeel(["--trust", "--json", "mcp", "list"], { cwd: base.root, env: base.env });
    expect(r.json<{ servers: Row[] }>().servers[0]!.state).toBe("disabled");
    const d = r.json<{ diagnostics: { severity: string; file?: string; path?: string }[] }>().diagnostics;
    expect(d).toContainEqual(expect.objectContaining({ severity: "warning", file: base.path(".claude", "settings.json"), path: "disabledMcpjsonServers" }));
  });

  it("a settings file that cannot be parsed holds back every .mcp.json server its list could name, with a warning naming the file, where it breaks and what to do; yours still start; the file is not rewritten", async () => {
    const base = mcpWorkspace({});
    ws = base;
    base.write(".mcp.json", JSON.stringify({ mcpServers: { tracker: server(base, "tracker"), other: server(base, "other") } }));
    base.write(".claude/settings.json", { disabledMcpjsonServers: ["docs"] });
    const broken = '{\n  "disabledMcpjsonServers": ["tracker"],\n}\n';
    base.write(".claude/settings.local.json", broken);
    writeFileSync(join(base.keelHome, "mcp.json"), JSON.stringify({ mcpServers: { mine: server(base.path("mine.marks"), "mine") } }));
    const r = await runKeel(["--trust", "--json", "mcp", "list"], { cwd: base.root, env: base.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const out = r.json<{ servers: Row[]; diagnostics: { severity: string; file?: string; message: string }[] }>();
    const byName = Object.fromEntries(out.servers.map((s) => [s.name, s]));
    const file = base.path(".claude", "settings.local.json");
    for (const name of ["tracker", "other"]) {
      expect(byName[name]!.state).toBe("disabled");
      expect(byName[name]!.hint).toContain(`disabled by ${file} (which could not be read: not valid JSON`);
      expect(byName[name]!.hint).toContain("fix that file (keel never rewrites it) or remove it to start it");
      expect(base.exists(`${name}.marks`)).toBe(false);
    }
    expect(byName.mine!.state).toBe("connected");
    const warning = out.diagnostics.find((d) => d.file === file && d.severity === "warning")!;
    expect(warning.message).toMatch(/could not be read \(not valid JSON: .*\(line 3, column 1\)\)/);
    expect(warning.message).toContain("tracker, other were not started. Fix the file (keel never rewrites it) or remove it");
    const call = await runKeel(["--trust", "--yes", "--json", "call", "mcp__tracker__ping"], { cwd: base.root, env: base.env });
    expect(call.json<{ ok: boolean }>().ok).toBe(false);
    expect(base.exists("tracker.marks")).toBe(false);
    expect(readFileSync(file, "utf8")).toBe(broken);

    // fixed, its list applies as written: only the servers it names stay off
    base.write(".claude/settings.local.json", { disabledMcpjsonServers: ["tracker"] });
    const fixed = await runKeel(["--trust", "--json", "mcp", "list"], { cwd: base.root, env: base.env });
    const states = Object.fromEntries(fixed.json<{ servers: Row[] }>().servers.map((s) => [s.name, s.state]));
    expect(states).toMatchObject({ tracker: "disabled", other: "connected", mine: "connected" });
  });

  it("keel trust neither lists nor approves a server the settings turn off (trusting would not start it); turned back on, it waits for the next keel trust", async () => {
    const base = mcpWorkspace({});
    ws = base;
    base.write(".mcp.json", JSON.stringify({ mcpServers: { tracker: server(base, "tracker"), other: server(base, "other") } }));
    base.write(".claude/settings.json", { disabledMcpjsonServers: ["tracker"] });
    const trusted = await runKeel(["--json", "trust"], { cwd: base.root, env: base.env });
    expect(trusted.exitCode, trusted.stderr).toBe(0);
    expect(trusted.json<{ approved: { name: string }[] }>().approved.map((a) => a.name)).toEqual(['"other" (.mcp.json)']);
    const human = await runKeel(["trust"], { cwd: base.root, env: base.env });
    expect(human.stdout).not.toContain("tracker");

    base.write(".claude/settings.json", { disabledMcpjsonServers: [] });
    const r = await runKeel(["--json", "mcp", "list"], { cwd: base.root, env: base.env });
    const byName = Object.fromEntries(r.json<{ servers: Row[] }>().servers.map((s) => [s.name, s]));
    expect(byName.other!.state).toBe("connected");
    expect(byName.tracker!.state).toBe("untrusted");
    expect(byName.tracker!.hint).toContain("review it with `keel trust`");
    expect(base.exists("tracker.marks")).toBe(false);
  });
});
