import type { Host } from "../host.js";
import { UsageError } from "../errors.js";
import { createModel, modelCredentials } from "../model/create-model.js";
import { recordedModelSpec, requireModelSpec, type ModelSpec } from "../model/model-spec.js";
import type { ModelClient } from "../model/model-types.js";
import { acquireSessionLock } from "../session/session-lock.js";
import { sessionPaths } from "../session/session-paths.js";
import { changedOutsideKeel, loadSessionState, readSessionMeta } from "../session/session-store.js";
import { changedFilesMessage, notSealedMessage, SessionSeals } from "../session/session-seal.js";
import { ActiveSession, isPinned } from "./active-session.js";
import type { AgentRunOptions } from "./agent-runtime.js";
import type { AgentSettings } from "./agent-settings.js";
import { checkPinnedDir } from "./session-outcome.js";
import { childUsageOnOpen } from "./tree-budget.js";

/**
 * Opens a stored session to continue it (resume, approve/reject, compact), holding its lock: only a session keel
 * sealed for this user, whose directory can be used and whose files are the ones keel left. What its files record
 * of approvals and of the model's endpoint is not taken from them. Throws UsageError (the lock released) when it
 * cannot be continued.
 */
export async function openStoredSession(host: Host, id: string, opts: AgentRunOptions): Promise<ActiveSession> {
  const meta = await readSessionMeta(host.workspace.stateDir, id);
  const paths = sessionPaths(host.workspace.stateDir, id);
  // A committed session's messages would reach the model as the user's own: only sessions keel
  // started (or the user adopted) for this user are continued.
  const seals = new SessionSeals(host.workspace);
  if (!seals.isYours(id, meta.createdAt)) throw new UsageError(notSealedMessage(id));
  const lock = await acquireSessionLock(paths.lock, id);
  try {
    if (isPinned(meta)) checkPinnedDir(host, id, meta);
    else if (host.activeDirError !== undefined)
      throw new UsageError(`Session ${id} works in the active directory, which cannot be used: ${host.activeDirError}`);
    // The seal says who started the session; these say its files are the ones keel left (a repository can
    // write into a session's folder: git pull overwrites ignored files), so no message reaches the model as yours unread.
    const loaded = await loadSessionState(host.workspace.stateDir, id, seals);
    const changed = changedOutsideKeel(loaded, host.workspace.stateDir, id, seals);
    if (changed !== undefined) throw new UsageError(changedFilesMessage(id, changed));
    const state = loaded.state;
    if (state.childUsage) state.childUsage = await childUsageOnOpen(host.workspace.stateDir, state.childUsage);
    // Session files may have been committed: approvals recorded in them are not evidence (a resumed
    // session asks again unless this invocation says --yes), and the endpoint and key variable come
    // from the current config, never from session.json.
    state.yes = undefined;
    state.sessionAllow = [];
    meta.model = recordedModelSpec(meta.model, host.config, host.env, host.workspace.root);
    const spec = opts.model ? requireModelSpec(host.config, opts.model, host.env, host.workspace.root) : meta.model;
    const s = new ActiveSession(host, meta, state, paths, lock, sessionModel(host, spec), await loadAgentSettings(host), opts, loaded);
    // a session in the old format gets its checkpoint in the new one before anything is appended
    if (loaded.migrated) await s.checkpoint();
    return s;
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** The backend for `spec`; its credentials join what tool results hide (`host.resultSecrets`). */
export function sessionModel(host: Host, spec: ModelSpec): ModelClient {
  host.resultSecrets.addValues(modelCredentials(spec, host.env));
  return createModel(spec, host.env, host.fetch);
}

/** The `agent` config section, parsed by a schema module loaded only when a session runs (commands that run none never load zod for it). */
export async function loadAgentSettings(host: Host): Promise<AgentSettings> {
  const { agentSettings } = await import("./agent-settings.js");
  return agentSettings(host.config as Record<string, unknown>);
}
