import { createKeelHost } from "../../bin/app.js";
import type { Host, HostOptions } from "../../core/host.js";
import type { TempWorkspace } from "./temp-workspace.js";

/** Opens a fully assembled in-process host on a temp workspace (its env, so KEEL_HOME is private). */
export function openTestHost(ws: TempWorkspace, opts: Partial<HostOptions> = {}): Promise<Host> {
  return createKeelHost({ cwd: ws.root, env: ws.env, ...opts });
}
