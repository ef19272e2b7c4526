import { disabledHint } from "./claude-disabled-servers.js";
import type { Host } from "../../core/index.js";
import type { McpConnection } from "./mcp-connection.js";
import { loginCommand } from "./oauth-provider.js";
import { serverSandbox } from "./server-sandbox.js";
import { filterTools } from "./server-tools.js";
import { untrustedReason } from "./server-trust.js";

/** What `keel mcp list` shows for a server. */
export type McpServerState = "connected" | "connecting" | "failed" | "needs_login" | "untrusted" | "disabled" | "lazy" | "idle";

/** Time each start-up step took, in milliseconds. */
export interface StartupTimings {
  spawnMs?: number;
  initializeMs?: number;
  listToolsMs?: number;
  totalMs?: number;
}

/** One row of `keel mcp list`. */
export interface McpServerStatus {
  name: string;
  transport: string;
  source: string;
  scope: string;
  state: McpServerState;
  tools: number;
  startupMs: number | null;
  lastError: string | null;
  /** stdio servers: why it runs under the OS sandbox (`server`: it asks, `sandbox: true`; `workspace`: the workspace brings it and `sandbox.workspaceCommands` is on), or false. */
  sandboxed?: "server" | "workspace" | false;
  /** The next step for the user, when there is an obvious one (e.g. `keel mcp login NAME` for `needs_login`). */
  hint?: string;
  timings: McpConnection["timings"];
  stderrTail: string;
}

/** The `keel mcp list` row of one server. Never throws. */
export function serverStatus(host: Host, c: McpConnection): McpServerStatus {
  return {
    name: c.name,
    transport: c.transportKind ?? c.config.transport,
    source: c.config.origin.file,
    scope: c.config.origin.plugin ? `plugin:${c.config.origin.plugin}` : c.config.origin.scope,
    state: c.state,
    tools: filterTools(c, c.tools).length,
    startupMs: c.timings.totalMs !== undefined ? Math.round(c.timings.totalMs) : null,
    lastError: c.lastError ?? null,
    ...(c.config.transport === "stdio" ? { sandboxed: serverSandbox(c.config, host) ?? false } : {}),
    ...(c.state === "needs_login" ? { hint: `run \`${loginCommand(c.name)}\` to authorize keel with this server` } : {}),
    // Held back in a trusted workspace (added or changed since `keel trust`): say so, not "untrusted workspace".
    ...(c.state === "untrusted" && host.trusted ? { hint: untrustedReason(host, c) } : {}),
    // Turned off by Claude Code settings, not by its manifest: say which file, so it can be turned on there.
    ...(c.state === "disabled" && c.config.disabledBy !== undefined ? { hint: disabledHint(c.config) } : {}),
    ...(c.state !== "needs_login" && c.pendingScope
      ? { hint: `a tool needs a wider authorization (scopes: ${c.pendingScope}): run \`${loginCommand(c.name)}\` again to grant it` }
      : {}),
    timings: Object.fromEntries(Object.entries(c.timings).map(([k, v]) => [k, Math.round(v * 10) / 10])),
    stderrTail: c.stderr.tail(),
  };
}
