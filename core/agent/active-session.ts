import { errorMessage } from "../errors.js";
import { JsonlEventSink } from "../events.js";
import type { GuidanceEntry } from "../hooks.js";
import type { Host } from "../host.js";
import type { ChatMessage, ModelClient, ModelToolCall } from "../model/model-types.js";
import { TokenEstimator } from "../model/token-estimate.js";
import type { SessionLock } from "../session/session-lock.js";
import type { SessionPaths } from "../session/session-paths.js";
import { SessionSeals } from "../session/session-seal.js";
import type { LoadedSession } from "../session/session-store.js";
import type { SessionMeta, SessionState } from "../session/session-types.js";
import type { HookErrorEvent } from "../event-types.js";
import type { Approver, FileBaseline, FileBaselineStore, KeelEvent, Observation, RunContext } from "../types.js";
import type { SessionEvent } from "./session-events.js";
import type { AgentSettings } from "./agent-settings.js";
import { SessionRecorder } from "./session-recorder.js";
import { callIdsIn, uniqueCallIds, type UsedCallIds } from "./unique-call-ids.js";

/** Per-invocation options of a session run. */
/** Where an event comes from when a sub-agent's session recorded it: the `delegate_agent` call that runs it, its agent type, its depth (1+). */
export interface SubAgentOrigin {
  callId: string;
  agent: string;
  depth: number;
}

/** Options of one run of a session (a turn, a resume). */
export interface SessionRunOptions {
  yes?: boolean;
  approver?: Approver;
  signal?: AbortSignal;
  /** Receives assistant text as it streams. */
  onText?: (delta: string) => void;
  /**
   * Receives each event of the session's log as it is recorded (after the host's `onEvent`); a
   * sub-agent's (`delegate_agent`) events come here too, with `from` saying which call ran it.
   */
  onEvent?: (event: KeelEvent, from?: SubAgentOrigin) => void;
  /** Called when the model's tool call goes into the pipeline (an embedding program's progress display). */
  onToolStart?: (call: ToolCallStart) => void;
  /** Called with the observation of each call that went into the pipeline (also one the pipeline refused). */
  onToolEnd?: (call: ToolCallEnd) => void;
  /** Tools the user approved "always" in this process, kept across turns (`keel chat`); default: the session's own, from its state. */
  sessionAllow?: Set<string>;
  /**
   * With `decide(…, "approve")`: the user answered "always" to the waiting call (`keel chat`'s question). Once it runs
   * its tool joins `sessionAllow`, as a terminal's "always" does — unless that call was a strict ask (one keel could not
   * check exactly), whose "always" approves that call only. A sub-agent's waiting call is approved once.
   */
  approvedAlways?: boolean;
  maxSteps?: number;
  /**
   * Called with the session's id once this run's prompt is added to it (not when a hook refused it):
   * a `/name` prompt the user started uses it to take effect there (a skill's `allowed-tools`, see
   * ExpandedPrompt.started).
   */
  onPromptAdded?: (sessionId: string) => void;
  /**
   * A model reads this run's outcome (a sub-agent's, in the result of the `delegate_agent` or workflow step a model
   * called): a pause then says that deciding it is the user's, naming no command (see decideHint).
   */
  readByModel?: boolean;
  /**
   * A model reads how this run ends when it does not pause (a sub-agent's stop on max_steps, a budget or a hook, in the
   * result of the `delegate_agent` call that runs it): it then names no `keel run --resume` to go on (see goOnHint).
   */
  stopReadByModel?: boolean;
}

/** A model's tool call about to run: its id, the tool's name and the parsed input. */
export interface ToolCallStart {
  callId: string;
  tool: string;
  input: unknown;
}

/** A model's tool call that ended, with its observation. */
export interface ToolCallEnd extends ToolCallStart {
  observation: Observation;
}

/**
 * A session opened by this process: holds its state, its event log (passed to every tool
 * call so the pipeline's phase events land there, and holding the session's own record: see
 * SessionRecorder) and its writer lock. Messages change only through `addMessage`,
 * `setSystemPrompt` and `editMessages`, which append the change to the log.
 */
export class ActiveSession {
  readonly events: JsonlEventSink;
  readonly sessionAllow: Set<string>;
  readonly fileBaselines: FileBaselineStore;
  /** Messages to add once the pending tool calls are answered (hook texts of an approval that continues a turn). */
  readonly afterPending: ChatMessage[] = [];
  /** Token estimates of this session's messages and tools, remembered between steps. */
  readonly estimator = new TokenEstimator();
  /** Byte of the log where what the checkpoint does not hold begins (0 for a migrated session: all of it). */
  readonly logTailStart: number;
  /** Set while `delegate_agent` re-runs to continue its paused child with this decision. */
  delegateDecision?: { callId: string; child: string; decision: "approve" | "reject" };
  private readonly recorder: SessionRecorder;
  private readonly messages: ChatMessage[];
  /** Tool call ids of this session (artifact-name form), from the first `claimCallIds` on. */
  private callIds: UsedCallIds | undefined;
  /** The user's seals: what makes this session's checkpoint and queued messages keel's (see session-file-seal.ts). */
  readonly seals: SessionSeals;

  constructor(
    readonly host: Host,
    readonly meta: SessionMeta,
    readonly state: SessionState,
    readonly paths: SessionPaths,
    readonly lock: SessionLock,
    readonly model: ModelClient,
    readonly settings: AgentSettings,
    readonly options: SessionRunOptions,
    loaded: Pick<LoadedSession, "snapshotOffset" | "snapshotBytes"> & { migrated?: boolean },
  ) {
    this.logTailStart = loaded.migrated ? 0 : loaded.snapshotOffset;
    this.events = new JsonlEventSink(paths.events, undefined, true, eventListener(host.options.onEvent, options.onEvent));
    this.seals = new SessionSeals(host.workspace);
    this.recorder = new SessionRecorder(host.workspace.stateDir, state, this.events, loaded, this.seals);
    this.messages = state.messages as ChatMessage[];
    this.sessionAllow = options.sessionAllow ?? new Set(state.sessionAllow);
    const baselines = state.fileBaselines;
    const dirty = this.recorder.dirtyBaselines;
    this.fileBaselines = {
      async get(p: string) {
        return baselines[p];
      },
      async set(p: string, b: FileBaseline) {
        baselines[p] = b;
        dirty.add(p);
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

  /**
   * The tool calls of a model response with ids no other call of this session has (see
   * `uniqueCallIds`): record these, never the response's own, so approvals, recovery and
   * artifacts of two calls never mix.
   */
  claimCallIds(calls: ModelToolCall[], callIndex: number): ModelToolCall[] {
    this.callIds ??= callIdsIn(this.messages);
    return uniqueCallIds(calls, this.callIds, callIndex);
  }

  /** Appends a model-facing message (recorded in the log at once). */
  addMessage(message: ChatMessage): void {
    this.messages.push(message);
    this.emit("session_message", { message });
  }

  /** Sets the system prompt (the first message); recorded only when it changed. */
  setSystemPrompt(content: string): void {
    const first = this.messages[0];
    if (first?.role === "system" && first.content === content) return;
    this.editMessages(0, first?.role === "system" ? 1 : 0, [{ role: "system", content }]);
  }

  /** Replaces `deleteCount` messages at `start` by `insert` (pruning, compaction), recorded in the log. */
  editMessages(start: number, deleteCount: number, insert: ChatMessage[]): void {
    this.messages.splice(start, deleteCount, ...insert);
    this.emit("session_edit", { start, deleteCount, insert });
  }

  /** Directory of this session's next tool call: its pinned `cwd`, else the host's active directory (managed worktree). */
  get cwd(): string {
    return isPinned(this.meta) ? this.meta.cwd : this.host.activeDir;
  }

  /** The RunContext every tool call of this session uses. */
  runContext(extra: Partial<RunContext> = {}): RunContext {
    return {
      signal: this.options.signal,
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
   * Persists the state: fires `beforePersist` (its markers become a `hook` event), appends one
   * `session_state` entry with what changed and writes the log (one `write`; fsynced when `durable`:
   * at the end of a turn and when it pauses). Hook failures are recorded, never fatal.
   */
  async save(durable = false): Promise<void> {
    if (this.host.hooks.beforePersist.isUsed()) {
      const ctx = { host: this.host, sessionId: this.id, markers: [] as GuidanceEntry[] };
      try {
        await this.host.hooks.beforePersist.promise(ctx);
        if (ctx.markers.length) this.emit("hook", { hook: "beforePersist", texts: ctx.markers });
      } catch (error) {
        this.emit("hook_error", { hook: "beforePersist", message: errorMessage(error) });
      }
    }
    this.state.sessionAllow = [...this.sessionAllow];
    const changes = this.recorder.changes();
    if (changes) this.emit("session_state", changes);
    await this.recorder.persist(durable);
  }

  /** Writes the checkpoint `state.json` now (a new session's first state; a migrated one). */
  async checkpoint(): Promise<void> {
    this.events.flush(false);
    await this.recorder.checkpoint(this.events.position());
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

/** One listener calling the host's and the run's event callbacks, or none when neither is set. */
function eventListener(...listeners: (((event: KeelEvent) => void) | undefined)[]): ((event: KeelEvent) => void) | undefined {
  const set = listeners.filter((l) => l !== undefined);
  if (set.length <= 1) return set[0];
  return (event) => {
    for (const listener of set)
      try {
        listener(event);
      } catch {
        // a listener only watches (as in JsonlEventSink)
      }
  };
}

/** Whether a session's tools stay in its start directory (explicit cwd or a managed worktree it was started in). */
export function isPinned(meta: SessionMeta): boolean {
  return Boolean(meta.pinnedCwd || meta.worktree);
}
