import { basename } from "node:path";
import { pathToFileURL } from "node:url";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { errorMessage, type Host } from "../../core/index.js";
import { answerElicitation } from "./answer-elicitation.js";
import { coalesce } from "./coalesce.js";
import type { ElicitationRequest, Elicitor } from "./elicitation.js";
import type { McpConnection } from "./mcp-connection.js";
import { boundedData, boundedText } from "./notification-budget.js";

/** A server's tools are re-listed at most once per this many milliseconds, however often it sends `tools/list_changed`. */
export const RELIST_GAP_MS = 1000;

/** What the handlers of one server's client work with. */
export interface ClientHandlersContext {
  host: Host;
  conn: McpConnection;
  /** Who answers the server's elicitations now (see CallElicitors). */
  elicitor(): Elicitor;
  /** A signal that aborts once the calls in flight now have all ended (see CallElicitors.watchCallsInFlight). */
  watchCallsInFlight(): { signal: AbortSignal; release: () => void } | undefined;
  /** Tells the manager the server's tool list changed. */
  onToolsChanged(): void;
}

/**
 * Installs the handlers of what a server may send: `roots/list` (the workspace root; stdio servers only),
 * `elicitation/create`, log messages (events, redacted) and `tools/list_changed` (a re-list).
 */
export function installClientHandlers(client: Client, types: typeof import("@modelcontextprotocol/sdk/types.js"), c: ClientHandlersContext): void {
  const { host, conn } = c;
  // Only stdio servers are offered roots (see openClient): a remote server gets no local paths.
  if (conn.config.transport === "stdio")
    client.setRequestHandler(types.ListRootsRequestSchema, async () => ({
      roots: [{ uri: pathToFileURL(host.workspace.root).href, name: basename(host.workspace.root) }],
    }));
  client.setRequestHandler(types.ElicitRequestSchema, async (req, extra) => {
    const request = { server: conn.name, ...(req.params as Omit<ElicitationRequest, "server">) };
    // Asked during calls: no one waits for the answer once they have ended (a cancelled call), even if the server does not cancel it.
    const calls = c.watchCallsInFlight();
    try {
      const signal = calls ? AbortSignal.any([extra.signal, calls.signal]) : extra.signal;
      return { ...(await answerElicitation(host, c.elicitor(), request, signal)) } as Record<string, unknown>;
    } finally {
      calls?.release();
    }
  });
  client.setNotificationHandler(types.LoggingMessageNotificationSchema, (n) => {
    if (!conn.admitNotification()) return;
    host.events.emit({
      type: "mcp_log",
      server: conn.name,
      level: boundedText(String(n.params.level)),
      logger: n.params.logger === undefined ? undefined : boundedText(conn.redact(String(n.params.logger))),
      data: boundedData(n.params.data, conn.secrets),
    });
  });
  // A burst of list_changed notifications causes one re-list (see coalesce.ts).
  const relist = coalesce(
    async () => {
      await conn.refreshTools();
      host.events.emit({ type: "mcp_tools_changed", server: conn.name, tools: conn.tools.length });
      c.onToolsChanged();
    },
    (error) => host.events.emit({ type: "mcp_error", server: conn.name, message: conn.redact(`re-listing tools failed: ${errorMessage(error)}`) }),
    RELIST_GAP_MS,
  );
  client.setNotificationHandler(types.ToolListChangedNotificationSchema, () => relist());
}
