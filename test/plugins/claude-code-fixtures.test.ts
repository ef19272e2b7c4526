import { cpSync, readdirSync, existsSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";
import { keelJson } from "./plugin-test-kit.js";

const FIXTURES = fileURLToPath(new URL("../../../shared/fixtures/claude-code-plugins", import.meta.url));

let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

/** Copies the fixture tree into the workspace and makes it writable (the originals are read-only). */
function copyFixtures(target: string): void {
  cpSync(FIXTURES, target, { recursive: true });
  const walk = (dir: string): void => {
    chmodSync(dir, 0o755);
    for (const e of readdirSync(dir, { withFileTypes: true })) e.isDirectory() ? walk(join(dir, e.name)) : chmodSync(join(dir, e.name), 0o644);
  };
  walk(target);
}

describe("Claude Code plugins (anthropics/claude-code fixtures)", () => {
  it("loads every fixture plugin without an error diagnostic and lists commands, agents, skills and hook events as informational", async () => {
    ws = makeWorkspace();
    copyFixtures(ws.root);
    const expected = readdirSync(join(FIXTURES, "plugins"))
      .filter((d) => existsSync(join(FIXTURES, "plugins", d, ".claude-plugin", "plugin.json")))
      .sort();
    expect(expected.length).toBeGreaterThanOrEqual(10);

    const run = await keelJson(ws, ["plugins"]);
    expect(run.exitCode).toBe(0);
    const out = run.json();
    expect(out.plugins.map((p: { root: string }) => p.root.split("/").pop())).toEqual(expected);
    expect(out.failed).toEqual([]);
    expect(out.diagnostics.filter((d: { severity: string }) => d.severity === "error")).toEqual([]);

    const hookify = out.plugins.find((p: { name: string }) => p.name === "hookify");
    expect(hookify).toMatchObject({ version: "0.1.0", layout: "claude", level: "project" });
    const info = hookify.informational.map((i: { kind: string; name: string }) => `${i.kind}:${i.name}`);
    expect(info).toEqual(expect.arrayContaining(["command:/hookify", "agent:conversation-analyzer", "skill:writing-rules", "hook-event:PreToolUse", "hook-event:Stop", "hook-event:UserPromptSubmit"]));
    expect(out.diagnostics.some((d: { severity: string; file: string; message: string }) => d.severity === "info" && d.file === hookify.path && /does not run them yet/.test(d.message))).toBe(true);

    const tools = (await keelJson(ws, ["tools"])).json();
    expect(tools.diagnostics.filter((d: { severity: string }) => d.severity === "error")).toEqual([]);

    const text = await (await import("../helpers/run-cli.js")).runKeel(["plugins"], { cwd: ws.root, env: ws.env });
    expect(text.stdout).toMatch(/^hookify\s+0\.1\.0\s+project\s/m);
    expect(text.stdout).toContain("info: command /hookify (not run by keel yet)");
  });

  it("loads a workspace-root .claude-plugin/plugin.json with commands/, agents/ and hooks/ folders", async () => {
    ws = makeWorkspace({
      ".claude-plugin/plugin.json": { name: "rooted", version: "1.2.3", author: { name: "x" }, keywords: ["a"], hooks: "./hooks/extra.json" },
      "commands/ship.md": "",
      "agents/reviewer.md": "",
      "hooks/hooks.json": { hooks: { SessionStart: [{ hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/s.sh" }] }] } },
      "hooks/extra.json": { hooks: { PreCompact: [] } },
    });
    const out = (await keelJson(ws, ["plugins"])).json();
    expect(out.plugins).toHaveLength(1);
    expect(out.diagnostics.filter((d: { severity: string }) => d.severity !== "info")).toEqual([]);
    expect(out.plugins[0].informational.map((i: { kind: string; name: string }) => `${i.kind}:${i.name}`).sort()).toEqual(
      ["agent:reviewer", "command:/ship", "hook-event:PreCompact", "hook-event:SessionStart"],
    );
  });
});
