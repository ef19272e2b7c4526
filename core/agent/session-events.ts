/**
 * Events of an agent session (in `.keel/sessions/<id>/events.jsonl`, next to the pipeline events
 * of the session's tool calls). Every one carries the session's id.
 */
import type { GuidanceEntry } from "../hooks.js";
import type { SessionEditEvent, SessionMessageEvent, SessionStateEvent } from "../session/session-log.js";
import type { ModelCallEvent, ModelErrorEvent, ModelResponseEvent, ModelRetryEvent } from "./model-call-events.js";

/** Fields of every session event. */
export interface SessionFields {
  sessionId: string;
}

/** A session started. */
export interface SessionStartEvent extends SessionFields {
  type: "session_start";
  /** 0 for a top-level session, 1+ for sub-agents. */
  depth: number;
  parentSessionId?: string;
  model: string;
  cwd: string;
  /** The sub-agent type it runs (`delegate_agent` `agent`), if any. */
  agentType?: string;
  /** Random: no one who has not read the log knows how it starts (see session-file-seal.ts). */
  nonce?: string;
}

/** The user adopted the session (`keel sessions adopt`): what the log held so far is theirs. `nonce`: random, as in session_start. */
export interface SessionAdoptedEvent extends SessionFields {
  type: "session_adopted";
  nonce: string;
}

/** A turn started (a prompt, a resume, or approvals continuing). */
export interface TurnStartEvent extends SessionFields {
  type: "turn_start";
  turn: number;
  resume?: boolean;
}

/** Lifecycle hooks added text (`beforePrompt`, `onResume`, `beforePersist`, `beforeDelegate`, `afterDelegate`). */
export interface HookEvent extends SessionFields {
  type: "hook";
  hook: string;
  texts: GuidanceEntry[] | string[];
  resume?: boolean;
}

/** Project instruction files (AGENTS.md, CLAUDE.md, …) went into the system prompt; `notes` says what was skipped and why. */
export interface InstructionsEvent extends SessionFields {
  type: "instructions";
  files: { path: string; level: "user" | "workspace"; tokens: number; importedFrom?: string; truncated?: boolean }[];
  notes?: string[];
}

/** The session stopped with an error. */
export interface SessionErrorEvent extends SessionFields {
  type: "error";
  message: string;
}

/** A budget (steps, tokens, cost) ran out. */
export interface BudgetExceededEvent extends SessionFields {
  type: "budget_exceeded";
  budget: string;
}

/** Queued messages (`keel send`) were added to the conversation. */
export interface QueueDrainedEvent extends SessionFields {
  type: "queue_drained";
  count: number;
  /** How many of them a command keel ran for a tool queued (`keel send` under `KEEL_CALL`), not the user; absent when none. */
  fromTool?: number;
}

/** An approval of a paused call was decided (`keel sessions approve|reject`, or on the terminal). */
export interface ApprovalDecisionEvent extends SessionFields {
  type: "approval_decision";
  callId: string;
  tool: string;
  /** The decided call's arguments (so a process that did not see the call asked for can show it). */
  input?: unknown;
  decision: string;
}

/** The run paused: a call needs approval and nobody can answer now. */
export interface ApprovalPausedEvent extends SessionFields {
  type: "approval_paused";
  callId: string;
  tool: string;
  input: unknown;
  message: string;
}

/** A model response had more tool calls than keel runs of one (`max`): the last `count` are answered "not run". */
export interface ToolCallsNotRunEvent extends SessionFields {
  type: "tool_calls_not_run";
  callIndex: number;
  count: number;
  max: number;
}

/** `tool_search` made deferred tools callable. */
export interface ToolsDiscoveredEvent extends SessionFields {
  type: "tools_discovered";
  tools: string[];
}

/**
 * Tools found by earlier searches were dropped from the menu (deferred again) to keep the found set
 * within `budgetTokens` (what agent.toolSearchShare leaves after the tools always offered).
 */
export interface ToolsDroppedEvent extends SessionFields {
  type: "tools_dropped";
  tools: string[];
  budgetTokens: number;
}

/** Plugin guidance was added for the model. */
export interface ToolGuidanceEvent extends SessionFields {
  type: "tool_guidance";
  text: string;
}

/** The model sent tool arguments that are not JSON. */
export interface ToolArgumentsInvalidEvent extends SessionFields {
  type: "tool_arguments_invalid";
  callId: string;
  tool: string;
  message: string;
}

/** Old tool outputs were pruned to fit the context window. */
export interface ContextPrunedEvent extends SessionFields {
  type: "context_pruned";
  pruned: number;
  before: number;
  after: number;
  window: number;
}

/** Old messages were dropped to fit the context window. */
export interface ContextCompactedTokensEvent extends SessionFields {
  type: "context_compacted_tokens";
  before: number;
  after: number;
  window: number;
}

/** The conversation was compacted into a summary. */
export interface CompactionEvent extends SessionFields {
  type: "compaction";
  method: string;
  removedMessages: number;
  modelError?: string;
}

/** A crashed turn was recovered on resume: calls whose outcome is unknown are not re-run. */
export interface RecoveryEvent extends SessionFields {
  type: "recovery";
  turn: number;
  previousPid?: number;
  unknownCalls: { id: string; tool: string; started: boolean }[];
}

/**
 * The conversation broke a chat-completions rule (a tool call without its result right after it, a
 * message between calls and their results, a stray result, a repeated call id) and was repaired before
 * the next model call; counts as in `ConversationRepairs`.
 */
export interface ConversationRepairedEvent extends SessionFields {
  type: "conversation_repaired";
  unanswered: number;
  unansweredIds: string[];
  moved: number;
  strayResults: number;
  renamed: number;
}

/** `delegate_agent` started a child session. */
export interface DelegateStartEvent extends SessionFields {
  type: "delegate_start";
  /** The sub-agent type asked for, if any. */
  agent?: string;
  tools?: string[];
  isolation: string;
  worktree?: string;
}

/** The child session of `delegate_agent` paused for an approval; the parent pauses on the call. */
export interface DelegatePausedEvent extends SessionFields {
  type: "delegate_paused";
  childSessionId: string;
}

/** The child session of `delegate_agent` ended. */
export interface DelegateEndEvent extends SessionFields {
  type: "delegate_end";
  childSessionId: string;
  reason: string;
  changedFiles?: string[];
}

/** A turn ended (`afterTurn` hooks ran). */
export interface AfterTurnEvent extends SessionFields {
  type: "after_turn";
  turn: number;
  reason: string;
  notes: GuidanceEntry[];
}

/** A turn ended (always recorded, whatever the `afterTurn` hooks do). */
export interface TurnEndEvent extends SessionFields {
  type: "turn_end";
  turn: number;
  reason: string;
}

/** Every session event. */
export type SessionEvent =
  | SessionStartEvent
  | SessionAdoptedEvent
  | TurnStartEvent
  | HookEvent
  | InstructionsEvent
  | ModelCallEvent
  | ModelResponseEvent
  | ModelErrorEvent
  | ModelRetryEvent
  | SessionErrorEvent
  | BudgetExceededEvent
  | QueueDrainedEvent
  | ApprovalDecisionEvent
  | ApprovalPausedEvent
  | ToolsDiscoveredEvent
  | ToolsDroppedEvent
  | ToolCallsNotRunEvent
  | ToolGuidanceEvent
  | ToolArgumentsInvalidEvent
  | ContextPrunedEvent
  | ContextCompactedTokensEvent
  | CompactionEvent
  | RecoveryEvent
  | ConversationRepairedEvent
  | DelegateStartEvent
  | DelegatePausedEvent
  | DelegateEndEvent
  | AfterTurnEvent
  | TurnEndEvent
  | SessionMessageEvent
  | SessionEditEvent
  | SessionStateEvent;
