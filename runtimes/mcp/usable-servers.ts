import { disabledWhere } from "./claude-disabled-servers.js";
import { ToolError } from "../../core/index.js";
import type { McpConnection } from "./mcp-connection.js";
import type { McpManager } from "./mcp-manager.js";

/**
 * The servers a generic `mcp_*` tool may use: the one named by `server` (matched
 * case-insensitively; a ToolError(precondition_failed) saying what to do when it is unknown,
 * disabled, not started for an unset variable, or untrusted), else every enabled, trusted server.
 */
export function usableServers(manager: McpManager, server: string | undefined): McpConnection[] {
  if (server !== undefined) {
    const conn = manager.find(server);
    if (!conn)
      throw new ToolError(
        `Unknown MCP server "${server}". Known servers: ${manager.connections.map((c) => c.name).join(", ") || "none"}.`,
        "precondition_failed",
      );
    check(manager, conn);
    return [conn];
  }
  return manager.connections.filter((c) => c.config.enabled && !c.config.unsetVars.length && manager.isTrusted(c));
}

function check(manager: McpManager, conn: McpConnection): void {
  if (!conn.config.enabled) throw new ToolError(`MCP server "${conn.name}" is disabled in ${disabledWhere(conn.config)}.`, "precondition_failed");
  if (conn.config.unsetVars.length) throw new ToolError(`MCP server "${conn.name}" was not started: ${conn.lastError}.`, "precondition_failed");
  if (!manager.isTrusted(conn)) throw new ToolError(manager.untrustedReason(conn), "precondition_failed");
}
