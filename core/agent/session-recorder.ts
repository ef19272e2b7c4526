import type { JsonlEventSink } from "../events.js";
import { LOGGED_FIELDS, loggedPending, type SessionStateEvent } from "../session/session-log.js";
import type { SessionSeals } from "../session/session-seal.js";
import { writeSessionSnapshot, writeSessionStatus, type LoadedSession } from "../session/session-store.js";
import type { SessionState } from "../session/session-types.js";

/** A checkpoint is never written before this many log bytes followed the previous one. */
export const SNAPSHOT_MIN_BYTES = 1024 * 1024;

/**
 * Persists a session as an append-only log: messages are appended to `events.jsonl` as they are
 * added (by ActiveSession), and each `persist` appends one `session_state` entry holding only the
 * fields that changed, then writes the buffered lines with one `write`. The checkpoint `state.json`
 * is rewritten only when the log has grown by at least the checkpoint's own size (and 1 MiB) since
 * the last one, so the bytes written per step do not grow with the history, and resume reads at
 * most about twice the checkpoint. `status.json` (for `keel sessions list`) is rewritten only when
 * status, reason, title, turn or pid change.
 */
export class SessionRecorder {
  /** JSON of each logged field as last recorded. */
  private readonly last = new Map<string, string | undefined>();
  /** JSON of each plugin's state as last recorded. */
  private readonly lastPlugins = new Map<string, string>();
  /** Read-before-edit baselines set since the last entry. */
  readonly dirtyBaselines = new Set<string>();
  private snapshotOffset: number;
  private snapshotBytes: number;
  private statusKey = "";

  constructor(
    private readonly stateDir: string,
    private readonly state: SessionState,
    private readonly sink: JsonlEventSink,
    loaded: Pick<LoadedSession, "snapshotOffset" | "snapshotBytes">,
    /** The user's seals: each checkpoint carries keel's MAC of itself (see session-file-seal.ts). */
    private readonly seals?: SessionSeals,
  ) {
    this.snapshotOffset = loaded.snapshotOffset;
    this.snapshotBytes = loaded.snapshotBytes;
    for (const key of LOGGED_FIELDS) this.last.set(key, this.fieldJson(key));
    for (const [name, value] of Object.entries(state.pluginState)) this.lastPlugins.set(name, JSON.stringify(value));
  }

  /** The `session_state` entry for what changed since the last one (undefined when nothing did), and marks it recorded. */
  changes(): Omit<SessionStateEvent, "type" | "sessionId"> | undefined {
    const set: Record<string, unknown> = {};
    let any = false;
    for (const key of LOGGED_FIELDS) {
      const json = this.fieldJson(key);
      if (json === this.last.get(key)) continue;
      this.last.set(key, json);
      set[key] = json === undefined ? null : key === "pending" ? loggedPending(this.state.pending) : this.state[key];
      any = true;
    }
    const merge: NonNullable<SessionStateEvent["merge"]> = {};
    if (this.dirtyBaselines.size) {
      merge.fileBaselines = Object.fromEntries([...this.dirtyBaselines].map((p) => [p, this.state.fileBaselines[p] ?? null]));
      this.dirtyBaselines.clear();
    }
    const plugins: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(this.state.pluginState)) {
      const json = JSON.stringify(value);
      if (json !== this.lastPlugins.get(name)) plugins[name] = value ?? null;
      this.lastPlugins.set(name, json);
    }
    for (const name of this.lastPlugins.keys())
      if (!(name in this.state.pluginState)) {
        plugins[name] = null;
        this.lastPlugins.delete(name);
      }
    if (Object.keys(plugins).length) merge.pluginState = plugins;
    const merged = merge.fileBaselines !== undefined || merge.pluginState !== undefined;
    if (!any && !merged) return undefined;
    return { ...(any ? { set } : {}), ...(merged ? { merge } : {}) };
  }

  /**
   * Writes what is buffered (the caller has emitted `changes()` first) with one `write`, fsynced when
   * `durable`; then a checkpoint when due, and `status.json` when what it shows changed.
   */
  async persist(durable: boolean): Promise<void> {
    this.state.updatedAt = new Date().toISOString();
    this.sink.flush(durable);
    const offset = this.sink.position();
    if (offset - this.snapshotOffset >= Math.max(SNAPSHOT_MIN_BYTES, this.snapshotBytes)) await this.checkpoint(offset);
    const s = this.state;
    const key = JSON.stringify([s.status, s.reason, s.title, s.turn, s.pid]);
    if (key !== this.statusKey) {
      this.statusKey = key;
      await writeSessionStatus(this.stateDir, s);
    }
  }

  /** Writes `state.json` as of byte `offset` of the log (everything before it is recorded). */
  async checkpoint(offset: number): Promise<void> {
    this.snapshotBytes = await writeSessionSnapshot(this.stateDir, this.state, offset, this.seals);
    this.snapshotOffset = offset;
  }

  private fieldJson(key: (typeof LOGGED_FIELDS)[number]): string | undefined {
    if (key === "pending") return this.state.pending ? JSON.stringify(loggedPending(this.state.pending)) : undefined;
    return JSON.stringify(this.state[key]);
  }
}
