import type { Host } from "../../core/index.js";
import type { Elicitor } from "./elicitation.js";
import type { McpConnection } from "./mcp-connection.js";
import type { AuthProviderFactory } from "./open-client.js";
import type { ServerHealthStore, ToolListCache } from "./origin-state.js";

/** Shared dependencies of every connection. */
export interface ConnectionDeps {
  host: Host;
  health: ServerHealthStore;
  cache: ToolListCache;
  elicit: Elicitor;
  authProvider?: AuthProviderFactory;
  startupTimeoutMs: number;
  /** Called after the server's tool list changed (list_changed, or a lazy start found other tools). */
  onToolsChanged(conn: McpConnection): void;
}
