import { chmodSync, cpSync, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import type { TempWorkspace } from "../helpers/temp-workspace.js";
import { keelJson } from "./plugin-test-kit.js";

/** Copies a `plugins/` tree of Claude Code plugins into the workspace, writable (fixture files may be read-only). */
export function copyPluginTree(from: string, ws: TempWorkspace): void {
  cpSync(from, ws.root, { recursive: true });
  const walk = (dir: string): void => {
    chmodSync(dir, 0o755);
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else chmodSync(join(dir, e.name), 0o644);
    }
  };
  walk(ws.root);
}

/** The plugin folders under `<tree>/plugins`: with a `.claude-plugin/plugin.json`, or (as Claude Code has it) without one but with `commands/`, `agents/`, `skills/` or `hooks/`; sorted. */
export function pluginFolders(tree: string): string[] {
  const has = (d: string, ...rel: string[]) => existsSync(join(tree, "plugins", d, ...rel));
  return readdirSync(join(tree, "plugins"))
    .filter((d) => has(d, ".claude-plugin", "plugin.json") || ["commands", "agents", "skills", "hooks"].some((part) => has(d, part)))
    .sort();
}

/**
 * Runs `keel plugins` and `keel tools` on a workspace holding a copied tree: every plugin loads,
 * nothing fails, no error diagnostics. Returns `keel plugins --json`.
 */
export async function expectTreeLoads(ws: TempWorkspace, expected: string[]): Promise<{ plugins: any[]; diagnostics: any[] }> {
  const run = await keelJson(ws, ["plugins"]);
  expect(run.exitCode).toBe(0);
  const out = run.json();
  expect(out.plugins.map((p: { root: string }) => p.root.split("/").pop())).toEqual(expected);
  expect(out.failed).toEqual([]);
  expect(out.diagnostics.filter((d: { severity: string }) => d.severity === "error")).toEqual([]);
  const tools = (await keelJson(ws, ["tools"])).json();
  expect(tools.diagnostics.filter((d: { severity: string }) => d.severity === "error")).toEqual([]);
  return out;
}

/** `kind:name` of a listed plugin's informational items (commands, agents, skills, hook events). */
export function informational(plugin: { informational: { kind: string; name: string }[] }): string[] {
  return plugin.informational.map((i) => `${i.kind}:${i.name}`);
}
