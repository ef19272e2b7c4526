import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";
import { copyPluginTree, expectTreeLoads, informational, pluginFolders } from "../plugins/claude-plugin-tree.js";

/**
 * Compatibility check against real-world Claude Code plugins (anthropics/claude-code), kept outside
 * this repository in `../shared/fixtures` (or `$KEEL_COMPAT_FIXTURES`). Run with `npm run compat`;
 * `npm test` never needs it.
 */
const FIXTURES = resolve(process.env.KEEL_COMPAT_FIXTURES ?? fileURLToPath(new URL("../../../shared/fixtures", import.meta.url)));
const TREE = resolve(FIXTURES, "claude-code-plugins");

let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

describe("compat: real-world Claude Code plugins", () => {
  it("the fixture folder is there", () => {
    expect(
      existsSync(resolve(TREE, "plugins")),
      `${TREE}/plugins is missing: the compat check needs the real-world fixtures next to this checkout (../shared/fixtures) or KEEL_COMPAT_FIXTURES=<folder holding claude-code-plugins/>.`,
    ).toBe(true);
  });

  it("loads every plugin without an error diagnostic; hookify's commands, agents, skills and hook events are listed", async () => {
    ws = makeWorkspace();
    copyPluginTree(TREE, ws);
    const expected = pluginFolders(TREE);
    expect(expected.length).toBeGreaterThanOrEqual(10);
    const out = await expectTreeLoads(ws, expected);
    const hookify = out.plugins.find((p: { name: string }) => p.name === "hookify");
    expect(hookify).toMatchObject({ version: "0.1.0", layout: "claude", level: "project" });
    expect(informational(hookify)).toEqual(
      expect.arrayContaining([
        "command:/hookify",
        "agent:conversation-analyzer",
        "skill:writing-rules",
        "hook-event:PreToolUse",
        "hook-event:Stop",
        "hook-event:UserPromptSubmit",
      ]),
    );
    // plugin-dev ships commands/, agents/ and skills/ without a plugin.json: it loads under its folder name
    const dev = out.plugins.find((p: { name: string }) => p.name === "plugin-dev");
    if (existsSync(resolve(TREE, "plugins", "plugin-dev")) && !existsSync(resolve(TREE, "plugins", "plugin-dev", ".claude-plugin")))
      expect(dev).toMatchObject({ folderOnly: true, layout: "claude" });
    const text = await runKeel(["plugins"], { cwd: ws.root, env: ws.env });
    expect(text.stdout).toMatch(/^hookify\s+0\.1\.0\s+project\s/m);
  });
});
