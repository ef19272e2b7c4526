import { describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { ManifestWatcher } from "../../../runtimes/serve/manifest-watcher.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { closeAfterEach, openTestHost } from "../../helpers/test-host.js";

let ws: TempWorkspace;
let host: Host;
closeAfterEach(() => ({ host, ws }));

/** Polls until `check` holds (generous limit; never a wall-clock assertion). */
async function until(check: () => boolean): Promise<boolean> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
  return check();
}

describe("keel mcp serve's manifest watcher", () => {
  it("reloads when a Claude Code settings file appears in the .claude folder of a folder between the working directory and the root", async () => {
    ws = makeWorkspace({ "packages/api/.claude/commands/hi.md": "hi\n" }, { git: true, under: "/var/tmp" });
    host = await openTestHost(ws, { cwd: ws.path("packages/api") });
    const changes: string[] = [];
    const watcher = new ManifestWatcher((why) => changes.push(why), 10);
    try {
      watcher.rearm(host);
      ws.write("packages/api/.claude/settings.json", { permissions: { deny: ["Bash"] } });
      expect(await until(() => changes.length > 0)).toBe(true);
      expect(changes[0]).toContain("settings.json");
    } finally {
      watcher.stop();
    }
  });
});
