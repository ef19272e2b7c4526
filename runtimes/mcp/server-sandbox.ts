import type { Host } from "../../core/index.js";
import type { McpServerConfig } from "../../manifests/mcp/mcp-server-config.js";

/**
 * Why a stdio server runs under the OS sandbox: `server` (it says `"sandbox": true`), `workspace`
 * (the workspace brings it, from its own manifests or a workspace plugin, and
 * `sandbox.workspaceCommands` is on), or undefined (it runs unsandboxed; HTTP and SSE servers
 * are not processes of keel's). Your own servers (`$KEEL_HOME/mcp.json`, user-level plugins) are
 * sandboxed only when they ask. Pure.
 */
export function serverSandbox(server: McpServerConfig, host: Host): "server" | "workspace" | undefined {
  if (server.transport !== "stdio") return undefined;
  if (server.sandbox) return "server";
  return !server.trustedByOrigin && host.sandbox.workspaceCommands ? "workspace" : undefined;
}

/**
 * Variables a sandboxed server gets unless its manifest sets them: package managers' caches in the
 * sandbox's private `/tmp` (gone when the server stops), since your home is read-only there — `npx`
 * and `uvx` would otherwise fail writing `~/.npm` or `~/.cache`. Your real caches are never made writable.
 */
export const SANDBOX_CACHE_ENV: Readonly<Record<string, string>> = Object.freeze({ npm_config_cache: "/tmp/.npm", XDG_CACHE_HOME: "/tmp/.cache" });
