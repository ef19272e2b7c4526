import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { waitDead } from "../../helpers/processes.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { closeAfterEach, openTestHost } from "../../helpers/test-host.js";

let ws: TempWorkspace;
let host: Host | undefined;
closeAfterEach(() => ({ host, ws }));

/** Your own PreToolUse hook (runs unsandboxed) on list_dir that starts `sleep` in a session of its own, then waits. */
function writeHook(timeout?: number): void {
  // Its output is redirected so the old code, which leaves it running, does not keep the hook's pipes open.
  const command = `setsid sleep 600 > /dev/null 2>&1 < /dev/null & echo $! > "${join(ws.root, "s.pid")}"; sleep 600`;
  writeFileSync(
    join(ws.keelHome, "config.json"),
    JSON.stringify({ hooks: { PreToolUse: [{ matcher: "list_dir", hooks: [{ type: "command", command, ...(timeout ? { timeout } : {}) }] }] } }),
  );
}

/** Kills the pid if it is still alive and says whether it had died by itself. */
async function diedAndCleanUp(): Promise<boolean> {
  const pid = Number(ws.read("s.pid"));
  const dead = await waitDead(pid);
  if (!dead) process.kill(pid, "SIGKILL");
  return dead;
}

describe("a command hook's background children that left its process group (`setsid cmd &`)", () => {
  it("die at the hook's timeout, found by the hook's KEEL_CALL mark", async () => {
    ws = makeWorkspace();
    writeHook(1);
    host = await openTestHost(ws, { yes: true });
    await host.runTool({ tool: "list_dir", input: { path: "." } });
    expect(await diedAndCleanUp()).toBe(true);
  });

  it("die when the call running the hook is cancelled", async () => {
    ws = makeWorkspace();
    writeHook();
    host = await openTestHost(ws, { yes: true });
    const controller = new AbortController();
    const pending = host.runTool({ tool: "list_dir", input: { path: "." } }, { signal: controller.signal });
    const written = () => ws.exists("s.pid") && Number(ws.read("s.pid")) > 0;
    for (const end = Date.now() + 30_000; !written() && Date.now() < end;) await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    expect(await pending).toMatchObject({ ok: false, code: "cancelled" });
    expect(await diedAndCleanUp()).toBe(true);
  });
});
