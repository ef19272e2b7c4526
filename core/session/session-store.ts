import { existsSync, readdirSync, statSync } from "node:fs";
import { mkdir, rm, rmdir, writeFile } from "node:fs/promises";
import { didYouMean } from "../did-you-mean.js";
import { StateError, UsageError } from "../errors.js";
import { readJsonState, readStateTextSync, writeTextAtomic } from "../state/json-file.js";
import { assertOwnPath, PRIVATE_DIR_MODE } from "../state/own-path.js";
import { storageMessage } from "../state/storage-problem.js";
import { urlForDisplay } from "../url-secrets.js";
import { foreignQueued } from "./message-queue.js";
import { logIdentity, sealedSnapshotText, sessionFilesProblem } from "./session-file-seal.js";
import { sessionPaths, sessionsRoot, type SessionPaths } from "./session-paths.js";
import { checkSessionFile, SessionMetaSchema, SessionStateSchema, withMetaDefaults, withStateDefaults } from "./session-schema.js";
import type { SessionSeals } from "./session-seal.js";
import { readLogTail, replayLog } from "./session-log.js";
import type { SessionMeta, SessionSnapshot, SessionState, SessionStatusFile } from "./session-types.js";

/** A fresh state for a new session. */
export function initialState(id: string, title: string): SessionState {
  return {
    version: 2,
    id,
    status: "idle",
    updatedAt: new Date().toISOString(),
    turn: 0,
    turnSteps: 0,
    title,
    messages: [],
    pending: null,
    usage: { modelCalls: 0, toolCalls: 0, inputTokens: 0, outputTokens: 0, lastRequestTokens: 0 },
    pluginState: {},
    discoveredTools: [],
    sessionAllow: [],
    fileBaselines: {},
  };
}

/**
 * Creates the session directory and its frozen `session.json`; throws if the id is taken, and
 * StateError when `.keel`, `sessions` or the session folder is a symlink (never written through).
 */
export async function createSessionFiles(stateDir: string, meta: SessionMeta): Promise<SessionPaths> {
  const paths = sessionPaths(stateDir, meta.id);
  if (existsSync(paths.meta)) throw new UsageError(`Session ${meta.id} already exists; resume it with \`keel run --resume ${meta.id}\` or pick another id.`);
  assertOwnPath(paths.artifacts, true);
  await mkdir(sessionsRoot(stateDir), { recursive: true, mode: PRIVATE_DIR_MODE });
  // The folder is made here, never reused: one that is already there came from elsewhere (a repository
  // can commit .keel/sessions/ID/ without a session.json), and its queue.json, events or artifacts would
  // become the new session's — queued messages sent to the model as the user's own words.
  try {
    await mkdir(paths.dir, { mode: PRIVATE_DIR_MODE });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    throw new UsageError(
      `Session ${meta.id} cannot be started: the folder ${paths.dir} already exists without being a session keel started (it may have come with the workspace). Pick another id, or remove that folder.`,
    );
  }
  try {
    await writeSessionMeta(paths, meta);
  } catch (error) {
    // A full or read-only disk: the folder made just above goes again, so no session without a session.json is
    // left behind (it would be listed as unreadable, "not started by keel for you", for good).
    await rm(paths.meta, { force: true }).catch(() => undefined);
    await rmdir(paths.artifacts).catch(() => undefined);
    await rmdir(paths.dir).catch(() => undefined);
    throw new StateError(`Could not start session ${meta.id}: ${storageMessage(error, paths.meta)}`, paths.meta, { cause: error });
  }
  return paths;
}

/** Makes the new session's artifacts folder and writes its `session.json` (created new). */
async function writeSessionMeta(paths: SessionPaths, meta: SessionMeta): Promise<void> {
  await mkdir(paths.artifacts, { mode: PRIVATE_DIR_MODE });
  // The endpoint is recorded for reading only (a resume takes it from the config): without the credentials a URL may carry.
  // Nor its headers (a proxy's key): their names only, as a note.
  const model =
    meta.model.kind === "openai"
      ? {
          ...meta.model,
          ...(meta.model.baseUrl ? { baseUrl: urlForDisplay(meta.model.baseUrl) } : {}),
          headers: undefined,
          ...(meta.model.headers ? { headerNames: Object.keys(meta.model.headers) } : {}),
        }
      : meta.model;
  await writeFile(paths.meta, JSON.stringify({ ...meta, model }, null, 2) + "\n", { flag: "wx" });
}

/**
 * Reads `session.json`; throws UsageError for an unknown session, StateError (naming the file and the first
 * bad field) for one that does not hold what keel writes there (see session-schema.ts).
 */
export async function readSessionMeta(stateDir: string, id: string): Promise<SessionMeta> {
  const paths = sessionPaths(stateDir, id);
  if (!existsSync(paths.meta)) {
    const root = sessionsRoot(stateDir);
    const hint = existsSync(root) ? didYouMean(id, readdirSync(root)) : "";
    throw new UsageError(`No session "${id}" in this workspace.${hint} List sessions with \`keel sessions list\`.`);
  }
  const meta = await readJsonState<SessionMeta | null>(paths.meta, null);
  if (!meta) throw new StateError(`Session file ${paths.meta} is empty.`, paths.meta);
  return withMetaDefaults(checkSessionFile(SessionMetaSchema, meta, id, paths.meta, paths.dir, `Session ${id}`) as unknown as SessionMeta);
}

/** A session's state as loaded: the checkpoint plus the log after it, and where the log ends. */
export interface LoadedSession {
  state: SessionState;
  /** Byte offset of `events.jsonl` the checkpoint covers. */
  snapshotOffset: number;
  /** Size of the checkpoint file (bytes). */
  snapshotBytes: number;
  /** Size of `events.jsonl` when read. */
  logSize: number;
  /** The checkpoint was in the pre-log format (version 1) and must be rewritten before anything is appended. */
  migrated: boolean;
  /**
   * With `seals`: why the session's files are not those keel left (see `sessionFilesProblem`), or
   * undefined when they are. Without `seals`, not checked (undefined).
   */
  filesProblem?: string;
}

/**
 * Loads a session's state: `state.json` (the checkpoint) and the `session_*` entries of
 * `events.jsonl` after its offset. Reads only; a version-1 `state.json` (whole state, rewritten
 * every step, with a `transcript`) is converted in memory and reported as `migrated`. StateError
 * when unreadable, of an unknown version, or holding what keel does not write (checked at the boundary,
 * see session-schema.ts: `state.json` as read, then the state its log replays to); nothing is overwritten then.
 */
export async function loadSessionState(stateDir: string, id: string, seals?: SessionSeals): Promise<LoadedSession> {
  const paths = sessionPaths(stateDir, id);
  const text = readStateTextSync(paths.state);
  const raw = text === undefined || text.trim() === "" ? null : parseSnapshot(text, paths.state);
  if (!raw) throw new StateError(`Session ${id} has no state.json yet (it never started). Start a new session instead.`, paths.state);
  const filesProblem = seals ? sessionFilesProblem(text!, id, paths.events, seals, raw) : undefined;
  const snapshotBytes = statSync(paths.state).size;
  if (raw.version === 1) {
    // Old format: state.json is the whole state as of the end of events.jsonl.
    const { transcript: _t, ...rest } = raw;
    const state = checkSessionFile(SessionStateSchema, { ...rest, version: 2 }, id, paths.state, paths.dir, `Session ${id}`) as unknown as SessionState;
    const logSize = existsSync(paths.events) ? statSync(paths.events).size : 0;
    return { state: withStateDefaults(state), snapshotOffset: logSize, snapshotBytes, logSize, migrated: true, filesProblem };
  }
  if (raw.version !== 2 || !Number.isSafeInteger(raw.logOffset) || (raw.logOffset as number) < 0)
    throw new StateError(
      `Session ${id}: ${paths.state} is not a state file this keel understands (version ${JSON.stringify(raw.version)}). It was left as is; start a new session.`,
      paths.state,
    );
  const { logOffset, log: _log, mac: _mac, ...state } = raw as unknown as SessionSnapshot & { mac?: string };
  const tail = readLogTail(paths.events, logOffset);
  // Checked once, as replayed (the log's entries set the same fields): a resume of a long session pays one check, not
  // two. Only when that fails is the checkpoint read again and checked on its own, to name the file at fault.
  const blame = async (error?: unknown): Promise<never> => {
    const checkpoint = (await readJsonState<Record<string, unknown> | null>(paths.state, null)) ?? {};
    checkSessionFile(SessionStateSchema, { ...checkpoint, version: 2 }, id, paths.state, paths.dir, `Session ${id}`);
    if (error !== undefined && !(error instanceof StateError))
      throw new StateError(
        `The session log ${paths.events} has an entry keel cannot apply (${(error as Error).message}); keel did not write it. Move the session's folder ${paths.dir} away (or delete it), then start a new session.`,
        paths.events,
        { cause: error },
      );
    if (error !== undefined) throw error;
    // The checkpoint is as keel writes it: what its log replays to is not.
    checkSessionFile(SessionStateSchema, state, id, paths.events, paths.dir, `Session ${id} (replayed from its log)`);
    throw new StateError(`Session ${id}: ${paths.events} replays to a state keel does not write.`, paths.events);
  };
  try {
    replayLog(state, tail.entries, paths.events);
  } catch (error) {
    await blame(error);
  }
  if (!SessionStateSchema.safeParse(state).success || state.id !== id) await blame();
  if (tail.lastTs !== undefined) state.updatedAt = new Date(tail.lastTs).toISOString();
  return { state: withStateDefaults(state), snapshotOffset: logOffset, snapshotBytes, logSize: tail.size, migrated: false, filesProblem };
}

/**
 * Why session `id`'s files are not as keel left them (undefined when they are): its checkpoint or log
 * (`loaded.filesProblem`, loaded with `seals`), or messages in its queue keel did not queue. A resume
 * refuses such a session until `keel sessions adopt`; `keel sessions show` and `list` say so (see `sessionOrigin`).
 */
export function changedOutsideKeel(loaded: Pick<LoadedSession, "filesProblem">, stateDir: string, id: string, seals: SessionSeals): string | undefined {
  if (loaded.filesProblem !== undefined) return loaded.filesProblem;
  const foreign = foreignQueued(sessionPaths(stateDir, id).queue, { id, seals }).length;
  return foreign ? `its queue.json holds ${foreign} message(s) keel did not queue` : undefined;
}

/**
 * Whose session `id` is, for this user: `yours` (keel started it, or you adopted it, and its files are
 * as keel left them: a resume continues it), `changed` (yours, but its files changed outside keel:
 * `changed` says how), or `foreign` (not started by keel for you here: it came with the workspace).
 * Only `yours` is resumed. The one rule `keel sessions show`, `list` and `adopt` apply.
 */
export type SessionOrigin = { origin: "yours" } | { origin: "changed"; changed: string } | { origin: "foreign" };

/**
 * Session `id`'s origin (see SessionOrigin), from its seal (`createdAt`: its `session.json`'s), its
 * checkpoint, a bounded window of its log and its queue: `loaded` (loaded with `seals`) when the caller
 * has it; else the checkpoint is read here and the log is never read whole. A session without a
 * checkpoint yet holds nothing to continue: its seal decides. Never throws.
 */
export function sessionOrigin(
  stateDir: string,
  id: string,
  createdAt: unknown,
  seals: SessionSeals,
  loaded?: Pick<LoadedSession, "filesProblem">,
): SessionOrigin {
  if (!seals.isYours(id, createdAt)) return { origin: "foreign" };
  let changed: string | undefined;
  try {
    changed = changedOutsideKeel(loaded ?? { filesProblem: checkpointProblem(stateDir, id, seals) }, stateDir, id, seals);
  } catch (error) {
    changed = `its checkpoint state.json cannot be read (${(error as Error).message})`;
  }
  return changed === undefined ? { origin: "yours" } : { origin: "changed", changed };
}

/** `sessionFilesProblem` for session `id`'s checkpoint as it is on disk (undefined without one). Throws StateError when it cannot be read. */
function checkpointProblem(stateDir: string, id: string, seals: SessionSeals): string | undefined {
  const paths = sessionPaths(stateDir, id);
  const text = readStateTextSync(paths.state);
  return text === undefined || text.trim() === "" ? undefined : sessionFilesProblem(text, id, paths.events, seals);
}

function parseSnapshot(text: string, file: string): Record<string, unknown> | null {
  try {
    return JSON.parse(text) as Record<string, unknown> | null;
  } catch (error) {
    throw new StateError(`State file ${file} is not valid JSON (${(error as Error).message}). keel left it untouched: fix or move it, then retry.`, file, {
      cause: error,
    });
  }
}

/** Reads a session's current state (checkpoint + log); see loadSessionState. */
export async function readSessionState(stateDir: string, id: string): Promise<SessionState> {
  return (await loadSessionState(stateDir, id)).state;
}

/**
 * Writes the checkpoint `state.json` atomically (temp file, fsync, rename): `state` as of byte `logOffset` of `events.jsonl`,
 * naming that log (`logIdentity`) and, with `seals`, carrying keel's MAC of itself (see session-file-seal.ts). Returns its size.
 */
export async function writeSessionSnapshot(stateDir: string, state: SessionState, logOffset: number, seals?: SessionSeals): Promise<number> {
  const paths = sessionPaths(stateDir, state.id);
  const text = sealedSnapshotText(
    JSON.stringify({ ...state, logOffset, log: logIdentity(paths.events, logOffset) } satisfies SessionSnapshot),
    state.id,
    seals,
  );
  await writeTextAtomic(paths.state, text);
  return Buffer.byteLength(text);
}

/** Writes `status.json` (what `keel sessions list` reads) atomically. */
export async function writeSessionStatus(stateDir: string, state: SessionState): Promise<void> {
  const status: SessionStatusFile = {
    status: state.status,
    reason: state.reason,
    title: state.title,
    turn: state.turn,
    pid: state.pid,
    updatedAt: new Date().toISOString(),
  };
  await writeTextAtomic(sessionPaths(stateDir, state.id).status, JSON.stringify(status));
}
