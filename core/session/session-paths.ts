import { join } from "node:path";
import { UsageError } from "../errors.js";

/** Files of one session directory. */
export interface SessionPaths {
  dir: string;
  meta: string;
  state: string;
  status: string;
  events: string;
  artifacts: string;
  queue: string;
  lock: string;
  /** Proof that keel started (or the user adopted) the session for this user (see session-seal.ts). */
  seal: string;
}

/** `.keel/sessions`. */
export function sessionsRoot(stateDir: string): string {
  return join(stateDir, "sessions");
}

/** Paths of a session; throws UsageError for an id that is not a plain name. */
export function sessionPaths(stateDir: string, id: string): SessionPaths {
  if (!/^[A-Za-z0-9._-]{1,100}$/.test(id) || id.startsWith("."))
    throw new UsageError(`Invalid session id "${id}": use letters, digits, ".", "_" and "-" (see \`keel sessions list\`).`);
  const dir = join(sessionsRoot(stateDir), id);
  return {
    dir,
    meta: join(dir, "session.json"),
    state: join(dir, "state.json"),
    status: join(dir, "status.json"),
    events: join(dir, "events.jsonl"),
    artifacts: join(dir, "artifacts"),
    queue: join(dir, "queue.json"),
    lock: join(dir, "writer.lock"),
    seal: join(dir, "seal"),
  };
}

/** A new, time-ordered session id: `s-20260101-120000-ab12`. */
export function newSessionId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `s-${stamp}-${Math.random().toString(36).slice(2, 6)}`;
}
