import { join } from "node:path";
import { readSessionState } from "../../core/session/session-store.js";
import type { SessionState } from "../../core/session/session-types.js";

/** A session's current state as keel loads it (checkpoint `state.json` + the log after it), from a workspace root. */
export function sessionState(root: string, id: string): Promise<SessionState> {
  return readSessionState(join(root, ".keel"), id);
}
