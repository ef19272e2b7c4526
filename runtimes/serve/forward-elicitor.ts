import type { ElicitRequestFormParams } from "@modelcontextprotocol/sdk/types.js";
import type { CallElicitor } from "../../core/index.js";

/** The part of the SDK's `Server` forwarding needs: sending a form `elicitation/create` to the client. */
export interface ForwardingServer {
  elicitInput(
    params: ElicitRequestFormParams,
    options: { signal: AbortSignal; relatedRequestId: string | number },
  ): Promise<{ action: "accept" | "decline" | "cancel"; content?: Record<string, unknown> }>;
}

/**
 * The elicitor of one call a `keel mcp serve` client made: an upstream MCP server's form
 * elicitation during that call goes to the client (on the call's own request stream), and the
 * client's answer goes back upstream. Its scope is the client session, so the MCP runtime forwards
 * only while that client's calls alone are in flight. An error from the client is a decline (the
 * upstream server then goes on as with any refusal); a cancelled call cancels.
 */
export function forwardElicitor(server: ForwardingServer, relatedRequestId: string | number): CallElicitor {
  const elicitor: CallElicitor = async (request, signal) => {
    try {
      const result = await server.elicitInput(
        {
          mode: "form",
          message: `MCP server "${request.server}" (called through keel) asks: ${request.message}`,
          // The SDK client checked the upstream form against the spec's schema before keel saw it.
          requestedSchema: { properties: {}, ...request.requestedSchema, type: "object" } as ElicitRequestFormParams["requestedSchema"],
        },
        { signal, relatedRequestId },
      );
      if (result.action !== "accept") return { action: result.action };
      return { action: "accept", content: (result.content ?? {}) as Record<string, string | number | boolean | string[]> };
    } catch {
      return { action: signal.aborted ? "cancel" : "decline" };
    }
  };
  elicitor.waitsForUser = true;
  elicitor.scope = server;
  return elicitor;
}
