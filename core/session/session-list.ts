import { existsSync, readdirSync } from "node:fs";
import { errorMessage } from "../errors.js";
import { readJsonStateSync } from "../state/json-file.js";
import { sessionPaths, sessionsRoot, type SessionPaths } from "./session-paths.js";
import type { SessionMeta, SessionStatusFile } from "./session-types.js";

/** A row of `keel sessions list`. */
export interface SessionSummary {
  id: string;
  status: string;
  reason?: string;
  title: string;
  updatedAt: string;
  turns: number;
  parentSessionId?: string;
  /** `session.json`'s creation time (absent for an unreadable session). */
  createdAt?: string;
  /** What keel could not read for this row, and what to do (`status` is `unreadable` when nothing could be read). */
  note?: string;
}

/**
 * Every session of the workspace, newest first. A row comes from `status.json` (keel writes it small: a few
 * hundred bytes), else from the `state.json` checkpoint — a session written before status.json existed, or one
 * whose status.json keel cannot read (too large, not JSON, a link: edited or not written by keel), with a note
 * saying so. A session none of whose files can be read is listed with status `unreadable` and a note saying why
 * and what to do. Never throws for one session's files.
 */
export function listSessions(stateDir: string): SessionSummary[] {
  const root = sessionsRoot(stateDir);
  if (!existsSync(root)) return [];
  const out: SessionSummary[] = [];
  for (const id of readdirSync(root)) {
    let paths: SessionPaths;
    try {
      paths = sessionPaths(stateDir, id);
    } catch {
      continue; // a folder keel would never name a session (a repository can commit any name)
    }
    if (!existsSync(paths.meta)) continue;
    out.push(summary(id, paths));
  }
  return out.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
}

function summary(id: string, paths: SessionPaths): SessionSummary {
  let note: string | undefined;
  try {
    // Read as keel's own files (no links, no FIFOs: a repository can commit .keel/sessions).
    const meta = readJsonStateSync<SessionMeta | null>(paths.meta, null);
    if (!meta) throw new Error(`${paths.meta} is empty or not keel's. Move the session's folder away if it is not yours`);
    let state: SessionStatusFile | undefined;
    try {
      state = readJsonStateSync<SessionStatusFile | null>(paths.status, null) ?? undefined;
    } catch (error) {
      // keel writes status.json small and rewrites it whole: one it cannot read was not written by keel.
      note = `${errorMessage(error).replace(/\.?$/, ".")} Listed from its checkpoint (state.json) instead, which may lag a turn behind: keel writes status.json small, so this one was edited or not written by keel; keel writes it again when the session next changes.`;
    }
    state ??= readJsonStateSync<SessionStatusFile | null>(paths.state, null) ?? undefined;
    return {
      id,
      status: state?.status ?? "new",
      reason: state?.reason,
      title: state?.title ?? "",
      updatedAt: state?.updatedAt ?? meta.createdAt,
      turns: state?.turn ?? 0,
      parentSessionId: meta.parentSessionId,
      createdAt: meta.createdAt,
      ...(note ? { note } : {}),
    };
  } catch (error) {
    return { id, status: "unreadable", title: "", updatedAt: "", turns: 0, note: note ? `${note} ${errorMessage(error)}` : errorMessage(error) };
  }
}
