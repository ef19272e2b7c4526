import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

/**
 * Makes the SDK deliver a progress notification before a response that arrived right after it.
 *
 * The SDK (1.32) runs notification handlers a microtask later but handles responses at once, and a
 * response removes its request's progress handler: progress a server sent just before the result,
 * read in the same chunk (common for a fast tool, and always over a pipe that coalesces writes),
 * was dropped — so keel also learned that the tool "reports no progress" and stopped asking it for
 * any. After `client.connect` (which installs the SDK's `onmessage`), this wraps it: a response that
 * follows a progress notification in the same synchronous batch is handed on one microtask later,
 * after the notification's handler. Everything else is handed on as before, at no extra cost.
 */
export function deliverProgressFirst(transport: Transport): void {
  const deliver = transport.onmessage;
  if (!deliver) return;
  let progressQueued = false;
  const settle = () => (progressQueued = false);
  transport.onmessage = (message, extra) => {
    const m = message as { method?: unknown; result?: unknown; error?: unknown };
    if (m.method === "notifications/progress") {
      if (!progressQueued) {
        progressQueued = true;
        queueMicrotask(settle);
      }
      deliver(message, extra);
    } else if (progressQueued && m.method === undefined && ("result" in m || "error" in m)) queueMicrotask(() => deliver(message, extra));
    else deliver(message, extra);
  };
}
