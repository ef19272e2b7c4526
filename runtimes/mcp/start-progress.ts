import type { McpConnection } from "./mcp-connection.js";

/** How long a command waits for servers before it says which ones it is waiting for. */
export const PROGRESS_AFTER_MS = 2_000;

/**
 * Tells the user, once, which servers a command is still waiting for after PROGRESS_AFTER_MS (an
 * `npx` server's first start downloads for a minute; one that hangs costs its whole start-up
 * timeout), with how long keel waits at most and how to wait less. `waiting` is read when the timer
 * fires. Returns the function that stops watching. Without `progress` (not a terminal), does nothing.
 */
export function watchStarts(waiting: ReadonlySet<McpConnection>, progress: ((line: string) => void) | undefined): () => void {
  if (!progress) return () => undefined;
  const timer = setTimeout(() => {
    const names = [...waiting].filter((c) => c.state === "connecting");
    if (!names.length) return;
    const longest = Math.max(...names.map((c) => c.startupTimeoutMs));
    const which = names.map((c) => `"${c.name}"`).join(", ");
    progress(
      `keel: waiting for MCP server${names.length > 1 ? "s" : ""} ${which} to start (at most ${Math.round(longest / 1000)} s; ` +
        `"startupTimeoutMs" sets that, and "lazy": true starts a server only when one of its tools is called)…`,
    );
  }, PROGRESS_AFTER_MS);
  timer.unref();
  return () => clearTimeout(timer);
}
