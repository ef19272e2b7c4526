import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { readSessionState } from "../../core/session/session-store.js";
import type { SessionState } from "../../core/session/session-types.js";

/** A session's current state as keel loads it (checkpoint `state.json` + the log after it), from a workspace root. */
export function sessionState(root: string, id: string): Promise<SessionState> {
  return readSessionState(join(root, ".keel"), id);
}

/**
 * Cuts a session's log right after its first assistant message and tears the next line, as a crash
 * mid-write leaves it (the checkpoint entry after the response is lost). Fails the test when the log
 * has no assistant message after its first line.
 */
export function tearLogAfterResponse(file: string): void {
  const lines = readFileSync(file, "utf8").split("\n");
  const assistant = lines.findIndex((l) => l.includes('"type":"session_message"') && l.includes('"role":"assistant"'));
  expect(assistant).toBeGreaterThan(0);
  writeFileSync(file, lines.slice(0, assistant + 1).join("\n") + '\n{"ts":1,"type":"session_sta');
}
