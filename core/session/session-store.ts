import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { StateError, UsageError } from "../errors.js";
import { readJsonState, writeTextAtomic } from "../state/json-file.js";
import { assertOwnPath } from "../state/own-path.js";
import { sessionPaths, sessionsRoot, type SessionPaths } from "./session-paths.js";
import type { SessionMeta, SessionState } from "./session-types.js";

/** A fresh state for a new session. */
export function initialState(id: string, title: string): SessionState {
  return {
    version: 1,
    id,
    status: "idle",
    updatedAt: new Date().toISOString(),
    turn: 0,
    turnSteps: 0,
    title,
    messages: [],
    transcript: [],
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
  await mkdir(paths.artifacts, { recursive: true });
  await writeFile(paths.meta, JSON.stringify(meta, null, 2) + "\n", { flag: "wx" });
  return paths;
}

/** Reads `session.json`; throws UsageError for an unknown session. */
export async function readSessionMeta(stateDir: string, id: string): Promise<SessionMeta> {
  const paths = sessionPaths(stateDir, id);
  if (!existsSync(paths.meta)) throw new UsageError(`No session "${id}" in this workspace. List sessions with \`keel sessions list\`.`);
  const meta = await readJsonState<SessionMeta | null>(paths.meta, null);
  if (!meta) throw new StateError(`Session file ${paths.meta} is empty.`, paths.meta);
  return meta;
}

/** Reads `state.json` of a session (StateError when unreadable; never overwritten then). */
export async function readSessionState(stateDir: string, id: string): Promise<SessionState> {
  const paths = sessionPaths(stateDir, id);
  const state = await readJsonState<SessionState | null>(paths.state, null);
  if (!state) throw new StateError(`Session ${id} has no state.json yet (it never started). Start a new session instead.`, paths.state);
  return state;
}

/** Writes `state.json` atomically (temp file, fsync, rename). */
export async function writeSessionState(stateDir: string, state: SessionState): Promise<void> {
  state.updatedAt = new Date().toISOString();
  await writeTextAtomic(sessionPaths(stateDir, state.id).state, JSON.stringify(state));
}

/** A row of `keel sessions list`. */
export interface SessionSummary {
  id: string;
  status: string;
  reason?: string;
  title: string;
  updatedAt: string;
  turns: number;
  parentSessionId?: string;
}

/** Every session of the workspace, newest first. Unreadable ones are listed with status `unreadable`. */
export function listSessions(stateDir: string): SessionSummary[] {
  const root = sessionsRoot(stateDir);
  if (!existsSync(root)) return [];
  const out: SessionSummary[] = [];
  for (const id of readdirSync(root)) {
    const paths = sessionPaths(stateDir, id);
    if (!existsSync(paths.meta)) continue;
    try {
      const meta = JSON.parse(readFileSync(paths.meta, "utf8")) as SessionMeta;
      const state = existsSync(paths.state) ? (JSON.parse(readFileSync(paths.state, "utf8")) as SessionState) : undefined;
      out.push({
        id,
        status: state?.status ?? "new",
        reason: state?.reason,
        title: state?.title ?? "",
        updatedAt: state?.updatedAt ?? meta.createdAt,
        turns: state?.turn ?? 0,
        parentSessionId: meta.parentSessionId,
      });
    } catch {
      out.push({ id, status: "unreadable", title: "", updatedAt: "", turns: 0 });
    }
  }
  return out.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
}
