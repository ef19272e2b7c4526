import type { ChatMessage, ModelToolCall } from "../model/model-types.js";
import type { ModelSpec } from "../model/model-spec.js";
import type { FileBaseline, Observation } from "../types.js";

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
  /** Applied plugins/runtimes and their fingerprint. */
  plugins: string[];
  pluginFingerprint: string;
  /** MCP servers that contributed tools, and their fingerprint. */
  servers: string[];
  serverFingerprint: string;
  /** sha256 of the tool menu (names + schemas) at start. */
  toolMenuHash: string;
  /** Managed worktree the session runs in, if any. */
  worktree?: { name: string; path: string; branch: string };
}

/** Session status as kept in `state.json`. */
export type SessionStatus = "running" | "idle" | "awaiting_approval" | "failed";

/** A transcript entry before its timestamp is added. */
export type TranscriptRecord =
  | { kind: "message"; message: ChatMessage }
  | { kind: "observation"; callId: string; observation: Observation }
  | { kind: "persist_marker"; markers: { source: string; text: string }[] }
  | { kind: "turn_interrupted"; turn: number; unknownCalls: string[] }
  | { kind: "compaction"; method: "model" | "heuristic"; summary: string; removedMessages: number }
  | { kind: "approval"; callId: string; decision: "approve" | "reject" }
  | { kind: "turn_end"; turn: number; reason: string };

/** One entry of the full transcript (never pruned or compacted). */
export type TranscriptEntry = { ts: number } & TranscriptRecord;

/** A tool call of the current assistant message and what happened to it. */
export interface PendingCall extends ModelToolCall {
  status: "queued" | "done" | "awaiting_approval";
  /** Plugin guidance message of the finished call (sent after all calls of the turn). */
  guidance?: string;
}

/** The pending-turn checkpoint: the last assistant message's tool calls. */
export interface PendingTurn {
  turn: number;
  calls: PendingCall[];
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

/** `state.json`: everything needed to continue the session (written atomically). */
export interface SessionState {
  version: 1;
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
  /** Model-facing messages (may be pruned / compacted). */
  messages: ChatMessage[];
  /** The full transcript. */
  transcript: TranscriptEntry[];
  pending: PendingTurn | null;
  usage: SessionUsage;
  /** Per-plugin state that survives resume. */
  pluginState: Record<string, unknown>;
  /** Deferred tools found through tool_search (callable for the rest of the session). */
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
  /** Whether asks are approved for this session (a child of a `--yes` run). */
  yes?: boolean;
}
