import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

/** How long closing waits for the server to confirm the end of a streamable HTTP session. */
export const END_SESSION_TIMEOUT_MS = 1000;

/**
 * Ends a streamable HTTP session with `DELETE` (the SDK's `terminateSession`), so the server frees
 * it instead of keeping it until it expires. Waits at most `ms`: exit is never held up by a slow or
 * gone server (closing the transport afterwards aborts the request). A transport without a session
 * (stdio, SSE) is left alone. Never throws.
 */
export async function endHttpSession(transport: Transport, ms = END_SESSION_TIMEOUT_MS): Promise<void> {
  const t = transport as Transport & { terminateSession?: () => Promise<void> };
  if (typeof t.terminateSession !== "function" || !t.sessionId) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    t.terminateSession().catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}
