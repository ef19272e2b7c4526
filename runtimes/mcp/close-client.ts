import { endHttpSession } from "./end-session.js";
import type { OpenedClient } from "./open-client.js";

/**
 * Stops an opened server (a child gets stdin closed, then SIGTERM, then SIGKILL; an HTTP session is
 * ended with DELETE first). Never throws.
 */
export async function closeClient(opened: OpenedClient): Promise<void> {
  const pid = opened.pid;
  const term = pid ? setTimeout(() => killQuietly(pid, "SIGTERM"), 300) : undefined;
  await endHttpSession(opened.transport);
  await opened.client.close().catch(() => undefined);
  if (term) clearTimeout(term);
}

function killQuietly(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}
