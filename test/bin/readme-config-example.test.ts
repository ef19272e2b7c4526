import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

/**
 * README's "Example: four files merged" cannot drift: its four files are read from README.md and
 * written where it says, and `keel config list` must print exactly the block README shows (with the
 * user folder README calls /home/you/.keel), then `keel config set review.mode strict` must do what the text after it says.
 */
const README = readFileSync(join(fileURLToPath(new URL("../..", import.meta.url)), "README.md"), "utf8");
const SECTION = README.split(/^#### Example: four files merged$/m)[1]!.split(/^## /m)[0]!;

describe("README's four-files config example", () => {
  let ws: TempWorkspace;
  beforeAll(() => {
    ws = makeWorkspace({}, { git: true });
  });
  afterAll(() => ws.cleanup());

  it("keel config list prints what README shows", async () => {
    const files = [...SECTION.matchAll(/^`([^`\n]+)`\n```json\n([\s\S]*?)\n```/gm)];
    expect(files.map((f) => f[1])).toEqual(["$KEEL_HOME/config.json", ".claw-config.json", ".claude/settings.json", "keel.config.json"]);
    for (const [, name, json] of files) {
      const path = name!.startsWith("$KEEL_HOME/") ? join(ws.keelHome, name!.slice("$KEEL_HOME/".length)) : ws.path(name!);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, json!);
    }
    const shown = /`keel config list` prints:\n\n```\n([\s\S]*?)\n```/.exec(SECTION)![1]!;
    const r = await runKeel(["config", "list"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.replaceAll(ws.keelHome, "/home/you/.keel")).toBe(shown);

    const set = await runKeel(["config", "set", "review.mode", "strict"], { cwd: ws.root, env: ws.env });
    expect(set.exitCode, set.stderr).toBe(0);
    expect(JSON.parse(ws.read(".keel/config.local.json"))).toEqual({ review: { mode: "strict" } });
    const get = await runKeel(["--json", "config", "get", "review.mode"], { cwd: ws.root, env: ws.env });
    expect(get.json()).toMatchObject({ data: { value: "strict", source: "local" } });
  });
});
