import { errorMessage } from "../errors.js";
import { JsonlEventSink } from "../events.js";
import type { GuidanceEntry } from "../hooks.js";
import type { Host } from "../host.js";
import type { ChatMessage, ModelClient } from "../model/model-types.js";
import type { SessionLock } from "../session/session-lock.js";
import type { SessionPaths } from "../session/session-paths.js";
import { writeSessionState } from "../session/session-store.js";
import type { SessionMeta, SessionState, TranscriptEntry, TranscriptRecord } from "../session/session-types.js";
import type { HookErrorEvent } from "../event-types.js";
import type { Approver, FileBaseline, FileBaselineStore, RunContext } from "../types.js";
import type { SessionEvent } from "./session-events.js";
import type { AgentSettings } from "./agent-settings.js";

/** Per-invocation options of a session run. */
export interface SessionRunOptions {
  yes?: boolean;
  approver?: Approver;
  signal?: AbortSignal;
  /** Receives assistant text as it streams. */
  onText?: (delta: string) => void;
  maxSteps?: number;
}

/**
 * A session opened by this process: holds its state, its event log (passed to every tool
 * call so the pipeline's phase events land there) and its writer lock.
 */
export class ActiveSession {
  readonly events: JsonlEventSink;
  readonly sessionAllow: Set<string>;
  readonly fileBaselines: FileBaselineStore;

  constructor(
    readonly host: Host,
    readonly meta: SessionMeta,
    readonly state: SessionState,
    readonly paths: SessionPaths,
    readonly lock: SessionLock,
    readonly model: ModelClient,
    readonly settings: AgentSettings,
    readonly options: SessionRunOptions,
  ) {
    this.events = new JsonlEventSink(paths.events);
    this.sessionAllow = new Set(state.sessionAllow);
    const baselines = state.fileBaselines;
    this.fileBaselines = {
      async get(p: string) {
        return baselines[p];
      },
      async set(p: string, b: FileBaseline) {
        baselines[p] = b;
      },
    };
  }

  /** Session id. */
  get id(): string {
    return this.meta.id;
  }

  /**
   * Records a session event (or a hook error) in the session's `events.jsonl`, with this session's
   * id (buffered; `save` and tool calls flush). `fields` are checked against the event's type.
   */
  emit<T extends SessionEventType>(type: T, fields: SessionEventFields<T>): void {
    // The call site is checked against the event type; the generic spread is beyond the compiler.
    this.events.emit({ type, sessionId: this.id, ...fields } as unknown as SessionEventBody);
  }

  /** Appends a model-facing message (and the same message to the transcript). */
  addMessage(message: ChatMessage): void {
    this.state.messages.push(message);
    this.record({ kind: "message", message });
  }

  /** Appends a transcript-only entry. */
  record(entry: TranscriptRecord): void {
    this.state.transcript.push({ ts: Date.now(), ...entry } as TranscriptEntry);
  }

  /** Directory of this session's next tool call: its pinned `cwd`, else the host's active directory (managed worktree). */
  get cwd(): string {
    return isPinned(this.meta) ? this.meta.cwd : this.host.activeDir;
  }

  /** The RunContext every tool call of this session uses. */
  runContext(extra: Partial<RunContext> = {}): RunContext {
    return {
      signal: this.options.signal,
      progress: true,
      yes: this.options.yes || this.state.yes,
      approver: this.options.approver,
      sessionId: this.id,
      origin: this.meta.depth > 0 ? "sub-agent" : "agent",
      events: this.events,
      fileBaselines: this.fileBaselines,
      sessionAllow: this.sessionAllow,
      cwd: this.cwd,
      ...extra,
    };
  }

  /**
   * Persists the state: fires `beforePersist` (markers go to the transcript), writes
   * `state.json` atomically, then flushes events. Hook failures are recorded, never fatal.
   */
  async save(): Promise<void> {
    if (this.host.hooks.beforePersist.isUsed()) {
      const ctx = { host: this.host, sessionId: this.id, markers: [] as GuidanceEntry[] };
      try {
        await this.host.hooks.beforePersist.promise(ctx);
        if (ctx.markers.length) {
          this.record({ kind: "persist_marker", markers: ctx.markers });
          this.emit("hook", { hook: "beforePersist", texts: ctx.markers });
        }
      } catch (error) {
        this.emit("hook_error", { hook: "beforePersist", message: errorMessage(error) });
      }
    }
    this.state.sessionAllow = [...this.sessionAllow];
    // Events first: state on disk never mentions a call whose events are not.
    this.events.flush();
    await writeSessionState(this.host.workspace.stateDir, this.state);
    this.events.flush();
  }

  /** Flushes events, closes the log and releases the writer lock. */
  close(): void {
    try {
      this.events.close();
    } finally {
      this.lock.release();
    }
  }
}

/** What a session records itself: its own events and the errors of the hooks it fires. */
type SessionEventBody = SessionEvent | HookErrorEvent;
/** The type of a session event. */
export type SessionEventType = SessionEventBody["type"];
/** The fields of a session event of type `T`, without `type` and `sessionId` (which `emit` adds). */
export type SessionEventFields<T extends SessionEventType> = Omit<Extract<SessionEventBody, { type: T }>, "type" | "sessionId">;

/** Whether a session's tools stay in its start directory (explicit cwd or a managed worktree it was started in). */
export function isPinned(meta: SessionMeta): boolean {
  return Boolean(meta.pinnedCwd || meta.worktree);
}
