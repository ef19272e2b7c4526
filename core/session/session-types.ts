import type { ChatMessage, ModelToolCall } from "../model/model-types.js";
import type { ModelSpec } from "../model/model-spec.js";
import type { FileBaseline } from "../types.js";

/** `session.json`: the contract frozen when the session starts. Never rewritten. */
export interface SessionMeta {
  id: string;
  createdAt: string;
  parentSessionId?: string;
  /** 0 for a top-level session; children are parent + 1 (limit 3). */
  depth: number;
  model: ModelSpec;
  /** Directory the session started in (where its tools operate when `pinnedCwd`). */
  cwd: string;
  /**
   * True when the session was started in an explicit directory (sub-agent worktree isolation,
   * a workflow step's directory, `keel run --worktree`): its tools stay in `cwd`. Otherwise
   * they follow the host's active directory (e.g. after `worktree_enter` / `worktree_exit`).
   */
  pinnedCwd?: boolean;
  permissions: unknown;
  // A record of what the session started with, which keel writes and never reads back. Optional: a session file
  // keel did not write (or an old one) may lack any of them. A reader that compares one must take a missing one
  // as "changed" (check again), never as "unchanged": keel's own files are no input to a security decision.
  /** Applied plugins/runtimes and their fingerprint. */
  plugins?: string[];
  pluginFingerprint?: string;
  /** MCP servers that contributed tools, and their fingerprint. */
  servers?: string[];
  serverFingerprint?: string;
  /** sha256 of the tool menu (names + schemas) at start. */
  toolMenuHash?: string;
  /** Managed worktree the session runs in, if any. */
  worktree?: { name: string; path: string; branch: string };
  /** The sub-agent type the session runs (`delegate_agent` `agent`): its prompt replaces the default system prompt, also on resume. */
  agentType?: SessionAgentType;
}

/** A sub-agent type as frozen into a session: the agent file may change later, the session keeps what it started with. */
export interface SessionAgentType {
  name: string;
  /** The agent file it came from. */
  file: string;
  /** The system prompt (the file's body). */
  prompt: string;
}

/** Session status as kept in `state.json`. */
export type SessionStatus = "running" | "idle" | "awaiting_approval" | "failed";

/** A tool call of the current assistant message and what happened to it. */
export interface PendingCall extends ModelToolCall {
  status: "queued" | "done" | "awaiting_approval";
  /** Plugin guidance message of the finished call (sent after all calls of the turn). */
  guidance?: string;
  /** `delegate_agent` paused because its child session awaits approval: that child's id. */
  child?: string;
}

/** The pending-turn checkpoint: the last assistant message's tool calls. */
export interface PendingTurn {
  turn: number;
  calls: PendingCall[];
  /** The response reached the output limit (`finish_reason: "length"`), this many tokens: a call whose arguments are not JSON was cut off there. */
  cutOff?: number;
}

/** Usage counters (session totals). */
export interface SessionUsage {
  modelCalls: number;
  toolCalls: number;
  inputTokens: number;
  outputTokens: number;
  /** Estimated input tokens of the last request. */
  lastRequestTokens: number;
}

/**
 * Everything needed to continue the session. Kept in memory while the session runs; on disk it is
 * the `state.json` checkpoint plus the `session_*` entries appended to `events.jsonl` after it.
 */
export interface SessionState {
  version: 2;
  id: string;
  status: SessionStatus;
  /** Why the last turn ended (`answer`, `max_steps`, `budget`, `error`, `cancelled`, `awaiting_approval`, `interrupted`). */
  reason?: string;
  error?: string;
  updatedAt: string;
  /** The user turn counter (1-based once a turn started). */
  turn: number;
  /** Model calls in the current turn (for maxSteps). */
  turnSteps: number;
  /** pid of the process running the session while status is `running`. */
  pid?: number;
  title: string;
  /** Model-facing messages (may be pruned / compacted; change them through ActiveSession only, so the log records it). */
  readonly messages: readonly ChatMessage[];
  pending: PendingTurn | null;
  usage: SessionUsage;
  /** Per-plugin state that survives resume. */
  pluginState: Record<string, unknown>;
  /** Deferred tools found through tool_search and callable, least recently found or used first (bounded: see core/agent/found-tools.ts). */
  discoveredTools: string[];
  /** Tools approved "always" for this session. */
  sessionAllow: string[];
  /** Read-before-edit baselines of this session. */
  fileBaselines: Record<string, FileBaseline>;
  /** Last answer text. */
  lastAnswer?: string;
  /** Tool names visible to this session (sub-agents); undefined = all. */
  toolSubset?: string[];
  maxSteps?: number;
  /**
   * What the parent session had left of its budgets when this sub-agent started (a child never
   * gets more than that; see core/agent/tree-budget.ts). Undefined for a top-level session.
   */
  budgets?: { maxTokens?: number; maxToolCalls?: number; maxModelCalls?: number };
  /** The usage each sub-agent of this session last reported (its own tree total), by child session id: budgets count it. */
  childUsage?: Record<string, Pick<SessionUsage, "modelCalls" | "toolCalls" | "inputTokens" | "outputTokens">>;
  /** Whether asks are approved for this session (a child of a `--yes` run). */
  yes?: boolean;
}

/**
 * `state.json`: a checkpoint of the state as of byte `logOffset` of `events.jsonl`. Resume reads it
 * and replays the `session_*` entries after that offset (written atomically, rarely: see SessionRecorder).
 */
export interface SessionSnapshot extends SessionState {
  logOffset: number;
  /** What `events.jsonl` held just before `logOffset` (`logIdentity`): a resume refuses a log that holds otherwise. */
  log?: string;
}

/** `status.json`: what `keel sessions list` shows, rewritten when one of these changes (a few times per turn). */
export interface SessionStatusFile {
  status: SessionStatus;
  reason?: string;
  title: string;
  turn: number;
  pid?: number;
  updatedAt: string;
}
