import { afterEach } from "vitest";
import { createHost } from "../../lib/create-host.js";
import type { Host, HostOptions } from "../../core/host.js";
import type { TempWorkspace } from "./temp-workspace.js";

/** Opens a fully assembled in-process host on a temp workspace (its env, so KEEL_HOME is private). */
export function openTestHost(ws: TempWorkspace, opts: Partial<HostOptions> = {}): Promise<Host> {
  return createHost({ cwd: ws.root, env: ws.env, ...opts });
}

/**
 * After each test, closes the host and removes the workspace `current()` returns (either may be
 * unset). Both are idempotent, so a test that opened neither leaves nothing to redo.
 */
export function closeAfterEach(current: () => { host?: Host; ws?: TempWorkspace }): void {
  afterEach(async () => {
    const { host, ws } = current();
    await host?.close();
    ws?.cleanup();
  });
}
