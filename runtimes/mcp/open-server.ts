import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { McpServerConfig } from "../../manifests/mcp/mcp-server-config.js";
import type { ConnectionDeps } from "./connection-deps.js";
import { openClient, type OpenClientOptions, type OpenedClient } from "./open-client.js";
import { sdkSchemaValidator } from "./sdk-schema-validator.js";
import { spawnConfig } from "./server-cwd.js";
import { serverSandbox } from "./server-sandbox.js";

/** What the connection opening a server is told along the way, and how it sets up the fresh client (with the SDK's schemas). */
export interface OpenServerHooks extends Pick<OpenClientOptions, "stderr" | "onSpawn" | "onAuthTokens" | "onProtocolError"> {
  setup(client: Client, types: typeof import("@modelcontextprotocol/sdk/types.js")): void;
}

/**
 * Opens one server for its connection: a stdio server is spawned in its working folder, under the
 * OS sandbox when `serverSandbox` says so; then `initialize` runs, all within `timeoutMs`. Throws
 * what `openClient` throws. Loads the MCP SDK.
 */
export async function openServer(
  config: McpServerConfig,
  deps: Pick<ConnectionDeps, "host" | "authProvider">,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  hooks: OpenServerHooks,
): Promise<OpenedClient> {
  const host = deps.host;
  const types = await import("@modelcontextprotocol/sdk/types.js");
  const sandboxed = serverSandbox(config, host);
  const spawn = spawnConfig(config, host);
  return openClient({
    server: sandboxed ? { ...spawn, sandbox: true } : spawn,
    stderr: hooks.stderr,
    hostEnv: host.env,
    fetch: host.fetch,
    writable: [host.workspace.root, ...(spawn.cwd ? [spawn.cwd] : [])],
    timeoutMs,
    signal,
    authProvider: deps.authProvider,
    jsonSchemaValidator: sdkSchemaValidator(host),
    sandbox: (argv, cwd, env) => {
      const target = { root: host.workspace.root, cwd, argv, env };
      const what = `MCP server "${config.name}"`;
      return sandboxed === "workspace"
        ? host.sandbox.wrapWorkspaceCommand(target, `${what} (from this workspace)`, signal)
        : host.sandbox.wrapServer(target, what, signal);
    },
    onSpawn: hooks.onSpawn,
    onAuthTokens: hooks.onAuthTokens,
    onProtocolError: hooks.onProtocolError,
    setup: (client) => hooks.setup(client, types),
  });
}
