import { closeSync, fstatSync, openSync } from "node:fs";
import { MAX_LOG_LINE_BYTES, readLinesFrom } from "../jsonl-lines.js";
import { StateError } from "../errors.js";
import { ownReadFlags } from "../state/own-path.js";
import type { ChatMessage } from "../model/model-types.js";
import type { PendingCall, PendingTurn, SessionState } from "./session-types.js";

/** The state fields a `session_state` entry may set (everything but messages and the two map fields). */
export interface LoggedStateFields {
  status: SessionState["status"];
  reason: string;
  error: string;
  turn: number;
  turnSteps: number;
  pid: number;
  title: string;
  /** The pending checkpoint without the calls' arguments (those are in the assistant message). */
  pending: LoggedPending;
  usage: SessionState["usage"];
  discoveredTools: string[];
  sessionAllow: string[];
  lastAnswer: string;
  toolSubset: string[];
  maxSteps: number;
  yes: boolean;
  budgets: NonNullable<SessionState["budgets"]>;
  childUsage: NonNullable<SessionState["childUsage"]>;
}

/** A pending call as logged: its arguments are read back from the assistant message that made it. */
export type LoggedPending = { turn: number; calls: Omit<PendingCall, "arguments">[]; cutOff?: number };

/** Names of the logged scalar fields, in a fixed order. */
export const LOGGED_FIELDS = [
  "status",
  "reason",
  "error",
  "turn",
  "turnSteps",
  "pid",
  "title",
  "pending",
  "usage",
  "discoveredTools",
  "sessionAllow",
  "lastAnswer",
  "toolSubset",
  "maxSteps",
  "yes",
  "budgets",
  "childUsage",
] as const satisfies readonly (keyof LoggedStateFields)[];

/** Session log: a message was appended to the model-facing conversation (replayed on resume). */
export interface SessionMessageEvent {
  sessionId: string;
  type: "session_message";
  message: ChatMessage;
}

/** Session log: `deleteCount` messages at `start` were replaced by `insert` (system prompt, pruning, compaction; replayed on resume). */
export interface SessionEditEvent {
  sessionId: string;
  type: "session_edit";
  start: number;
  deleteCount: number;
  insert: ChatMessage[];
}

/**
 * Session log: state fields changed since the last entry (replayed on resume). `set` replaces fields
 * (`null`: cleared); `merge` adds or replaces keys of the map fields (`null`: key removed).
 */
export interface SessionStateEvent {
  sessionId: string;
  type: "session_state";
  set?: Partial<{ [K in keyof LoggedStateFields]: LoggedStateFields[K] | null }>;
  merge?: { fileBaselines?: Record<string, unknown>; pluginState?: Record<string, unknown> };
}

/** An entry of the session log (a `session_*` event in `events.jsonl`). */
export type SessionLogEntry = (SessionMessageEvent | SessionEditEvent | SessionStateEvent) & { ts: number };

/** The log form of the pending checkpoint (arguments and provider data left out: the assistant message holds them, logged once). */
export function loggedPending(pending: PendingTurn | null): LoggedPending | null {
  if (!pending) return null;
  return {
    turn: pending.turn,
    calls: pending.calls.map(({ arguments: _a, extraContent: _x, ...rest }) => rest),
    ...(pending.cutOff !== undefined ? { cutOff: pending.cutOff } : {}),
  };
}

/** How a session entry's line names its type. */
const SESSION_TYPE = '"type":"session_';

/** Most bytes of a session log past its checkpoint that resume reads (read line by line, but its session entries are held in memory). */
export const MAX_LOG_TAIL_BYTES = 256 * 2 ** 20;

/**
 * The log entries after byte `offset` of `file`, the timestamp of the last one and the file size. A
 * torn last line (a crash mid-write) is ignored; StateError when the file is shorter than `offset` or
 * is not a regular file (opened without blocking: a FIFO or device planted there is refused at once).
 */
export function readLogTail(file: string, offset: number): { entries: SessionLogEntry[]; lastTs?: number; size: number } {
  const flags = ownReadFlags(file);
  let fd: number;
  try {
    // a link planted at the log reads as no log (ownReadFlags)
    fd = openSync(file, flags);
  } catch {
    if (offset > 0) throw new StateError(`The session log ${file} is missing, but its checkpoint needs ${offset} bytes of it. Start a new session.`, file);
    return { entries: [], size: 0 };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new StateError(`The session log ${file} is not a regular file; keel does not read it. Start a new session.`, file);
    const size = st.size;
    if (size < offset)
      throw new StateError(
        `The session log ${file} is shorter (${size} bytes) than its checkpoint state.json expects (${offset}): the session files were edited or truncated. Start a new session.`,
        file,
      );
    if (size - offset > MAX_LOG_TAIL_BYTES)
      throw new StateError(
        `The session log ${file} holds ${Math.round((size - offset) / 2 ** 20)} MiB past its checkpoint (state.json), more than keel reads at once (${MAX_LOG_TAIL_BYTES / 2 ** 20} MiB): keel checkpoints a session as it goes, so its own logs stay far below that; this one was edited or not written by keel. Start a new session.`,
        file,
      );
    const entries: SessionLogEntry[] = [];
    let lastTs: number | undefined;
    // Line by line: only session entries are held (a log of other events, however large, is passed over).
    for (const item of readLinesFrom(fd, offset, size, { torn: true })) {
      if ("skipped" in item) {
        // Too long to read: fatal only if it may be a session entry (keel writes none that long), since replaying without it would be wrong.
        if (item.head.includes(SESSION_TYPE))
          throw new StateError(
            `The session log ${file} has a session entry of ${item.bytes} bytes at byte ${item.offset}, more than keel reads of one line (${MAX_LOG_LINE_BYTES / 2 ** 20} MiB); keel writes none that long: the log was edited or not written by keel. Start a new session.`,
            file,
          );
        continue;
      }
      // only session entries are parsed; a nested `"type":"session_…"` elsewhere is weeded out below
      if (!item.line.includes(SESSION_TYPE)) continue;
      let entry: SessionLogEntry;
      try {
        entry = JSON.parse(item.line.toString("utf8")) as SessionLogEntry;
      } catch {
        continue; // torn line from a crash mid-write: tolerated
      }
      if (entry.type !== "session_message" && entry.type !== "session_edit" && entry.type !== "session_state") continue;
      entries.push(entry);
      lastTs = entry.ts;
    }
    return { entries, lastTs, size };
  } finally {
    closeSync(fd);
  }
}

/**
 * Applies log entries to `state` in order (mutating it). Only the logged fields can be set (an entry
 * naming any other field, e.g. `messages` or `id`, has that part ignored); an entry of the wrong
 * shape is a StateError naming `file` (the log was not written by keel).
 */
export function replayLog(state: SessionState, entries: SessionLogEntry[], file: string): void {
  const messages = state.messages as ChatMessage[];
  const fields = state as unknown as Record<string, unknown>;
  const logged = new Set<string>(LOGGED_FIELDS);
  const bad = (what: string) => new StateError(`The session log ${file} has a malformed ${what} entry; keel did not write it. Start a new session.`, file);
  for (const e of entries) {
    if (e.type === "session_message") {
      if (typeof e.message !== "object" || e.message === null) throw bad(e.type);
      messages.push(e.message);
    } else if (e.type === "session_edit") {
      if (!Number.isSafeInteger(e.start) || !Number.isSafeInteger(e.deleteCount) || e.start < 0 || e.deleteCount < 0 || !Array.isArray(e.insert))
        throw bad(e.type);
      messages.splice(e.start, e.deleteCount, ...e.insert);
    } else {
      for (const [key, value] of Object.entries(e.set ?? {})) {
        if (!logged.has(key)) continue;
        if (key === "pending") {
          if (value !== null && !Array.isArray((value as LoggedPending | undefined)?.calls)) throw bad(e.type);
          state.pending = restorePending(value as LoggedPending | null, messages);
        } else if (value === null) delete fields[key];
        else fields[key] = value;
      }
      mergeInto(state.fileBaselines, e.merge?.fileBaselines);
      mergeInto(state.pluginState, e.merge?.pluginState);
    }
  }
}

function mergeInto(target: Record<string, unknown>, changes: Record<string, unknown> | undefined): void {
  if (!changes) return;
  for (const [key, value] of Object.entries(changes)) {
    if (key === "__proto__") continue; // JSON.parse makes it an own key; assigning it would swap the prototype
    if (value === null) delete target[key];
    else target[key] = value;
  }
}

/** The pending checkpoint with each call's arguments taken from the latest assistant message that made it. */
function restorePending(logged: LoggedPending | null, messages: ChatMessage[]): PendingTurn | null {
  if (!logged) return null;
  const args = new Map<string, string>();
  for (let i = messages.length - 1; i >= 0 && args.size < logged.calls.length; i--) {
    const m = messages[i]!;
    if (m.role !== "assistant") continue;
    for (const c of m.toolCalls ?? []) if (!args.has(c.id)) args.set(c.id, c.arguments);
  }
  const cutOff = typeof logged.cutOff === "number" ? { cutOff: logged.cutOff } : {};
  return { turn: logged.turn, calls: logged.calls.map((c) => ({ ...c, arguments: args.get(c.id) ?? "" })), ...cutOff };
}
