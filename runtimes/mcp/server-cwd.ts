import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Host } from "../../core/index.js";
import type { McpServerConfig } from "../../manifests/mcp/mcp-server-config.js";

/**
 * The configuration a stdio server is spawned with. A server of yours (`$KEEL_HOME/mcp.json`, a
 * user-level plugin) that names no `cwd` starts in the workspace root only once the workspace is
 * trusted; until then it starts in an empty folder keel owns (`$KEEL_HOME/state/mcp/cwd/`), because
 * launchers read the folder they start in: `npx` runs a committed `node_modules/.bin` and obeys a
 * committed `.npmrc`, `python -m` imports the folder's modules first, `uvx` reads its `uv.toml`.
 * Every other server is spawned as configured. Throws only when that folder cannot be created.
 */
export function spawnConfig(server: McpServerConfig, host: Host): McpServerConfig {
  if (server.transport !== "stdio" || !server.defaultCwd || !server.trustedByOrigin || host.trusted) return server;
  const cwd = join(host.workspace.keelHome, "state", "mcp", "cwd");
  mkdirSync(cwd, { recursive: true, mode: 0o700 });
  return { ...server, cwd };
}
