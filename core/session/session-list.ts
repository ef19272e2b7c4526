import { existsSync, readdirSync } from "node:fs";
import { z } from "zod";
import { errorMessage } from "../errors.js";
import { readJsonStateSync } from "../state/json-file.js";
import { sessionPaths, sessionsRoot, type SessionPaths } from "./session-paths.js";

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
 * Every session of the workspace, newest first (`listedTime`: a time in the future does not count). A row comes from `status.json` (keel writes it small: a few
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
  const now = Date.now();
  return out.sort((a, b) => listedTime(b, now) - listedTime(a, now));
}

/**
 * The time a row sorts by: its `updatedAt`; one after `now` (a repository can commit a session updated in the year
 * 3000, which would otherwise stay on top for ever) or not a time gives way to its `createdAt`, and when that is no
 * time before `now` either, the row sorts last. Never throws.
 */
export function listedTime(row: Pick<SessionSummary, "updatedAt" | "createdAt">, now: number): number {
  for (const t of [Date.parse(row.updatedAt), Date.parse(row.createdAt ?? "")]) if (!Number.isNaN(t) && t <= now) return t;
  return -Infinity;
}

/** What a row reads of `session.json`: a repository can commit any JSON there (`"createdAt": 5` must not break the list). */
const MetaFields = z.object({ createdAt: z.string(), parentSessionId: z.string().optional() });

/** What a row reads of `status.json` (or of the `state.json` checkpoint, which holds the same fields). */
const StatusFields = z.object({
  status: z.string().optional(),
  reason: z.string().optional(),
  title: z.string().optional(),
  updatedAt: z.string().optional(),
  turn: z.number().int().nonnegative().optional(),
});

/** A session file that holds what keel does not write there. */
class NotKeels extends Error {}

/**
 * The fields a row shows from one of a session's files, or undefined when there is none; throws (an Error naming
 * the file and the fields) when the file holds other types there than keel writes.
 */
function readFields<T extends z.ZodTypeAny>(file: string, schema: T): z.infer<T> | undefined {
  // Read as keel's own files (no links, no FIFOs: a repository can commit .keel/sessions).
  const raw = readJsonStateSync<unknown>(file, null);
  if (raw === null) return undefined;
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const fields = [...new Set(parsed.error.issues.map((i) => i.path.join(".") || "(the whole file)"))].join(", ");
  throw new NotKeels(`${file} is not as keel writes it (${fields}: not the type keel writes there)`);
}

function summary(id: string, paths: SessionPaths): SessionSummary {
  let note: string | undefined;
  try {
    const meta = readFields(paths.meta, MetaFields);
    if (!meta) throw new NotKeels(`${paths.meta} is empty or not keel's`);
    let state: z.infer<typeof StatusFields> | undefined;
    try {
      state = readFields(paths.status, StatusFields);
    } catch (error) {
      // keel writes status.json small and rewrites it whole: one it cannot read was not written by keel.
      note = `${errorMessage(error).replace(/\.?$/, ".")} Listed from its checkpoint (state.json) instead, which may lag a turn behind: keel writes status.json small, so this one was edited or not written by keel; keel writes it again when the session next changes.`;
    }
    state ??= readFields(paths.state, StatusFields);
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
    // A file keel could not read says what to do itself; one holding what keel does not write gets the advice here.
    const why = error instanceof NotKeels ? `${error.message}. Move the session's folder away if it is not yours.` : errorMessage(error);
    return { id, status: "unreadable", title: "", updatedAt: "", turns: 0, note: note ? `${note} ${why}` : why };
  }
}
