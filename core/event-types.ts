/**
 * Every event keel writes to `events.jsonl` (the workspace's `.keel/events.jsonl` and each
 * session's `.keel/sessions/<id>/events.jsonl`), as one discriminated union on `type`. Each line of
 * the file is `JSON.stringify` of one of these, `ts` (milliseconds since the epoch) first; fields
 * shown optional are left out when they do not apply. Emit sites are checked against this union.
 */
import type { SessionEvent } from "./agent/session-events.js";
import type { ObservationCode, ObservationPhase } from "./types.js";

export type { SessionEvent } from "./agent/session-events.js";

/** Fields of every pipeline event: the call and the name it was called as. */
interface CallFields {
  callId: string;
  tool: string;
}

/** A call entered the pipeline. */
export interface ToolIntentEvent extends CallFields {
  type: "tool_intent";
  /** Who called: `cli`, `agent`, `sub-agent`, `workflow:…`, `mcp-call-tool`, `mcp-serve` (a client of `keel mcp serve`), … */
  origin: string;
  sessionId?: string;
}

/**
 * The checks a call passes before it executes, in order. A call that passes them all is recorded by
 * one `tool_execute` line naming them; a call refused by one is recorded by that check's own event.
 */
export type ToolCheck = "lookup" | "visibility" | "validate" | "hook" | "permission";

/** What a call went through after its checks, in order: the tool ran, its result was normalised, then truncated. */
export type ToolStep = "execute" | "normalize" | "truncate";

/** Lookup ended the call: no tool or alias has this name. */
export interface ToolLookupEvent extends CallFields {
  type: "tool_lookup";
  found: false;
}

/** Visibility ended the call: the tool exists but the caller's visibility filter hides it. */
export interface ToolVisibilityEvent extends CallFields {
  type: "tool_visibility";
  visible: false;
}

/** Validation ended the call: the input does not match the tool's schema, or the schema cannot be compiled. */
export interface ToolValidateEvent extends CallFields {
  type: "tool_validate";
  valid: false;
  /** Why the schema could not be compiled (the call was refused). */
  schemaError?: string;
  /** What is wrong with the input. */
  problems?: string[];
}

/** A plugin's `beforeTool` hook or block list ended the call. */
export interface ToolHookEvent extends CallFields {
  type: "tool_hook";
  blocked: true;
  /** The plugin that blocked the call. */
  by?: string;
}

/** The permission check ended the call: denied, or an `ask` that was not approved. */
export interface ToolPermissionEvent extends CallFields {
  type: "tool_permission";
  action: "ask" | "deny";
  /** The rule that decided, as written in the config. */
  rule?: string;
  /** How an `ask` ended without running. */
  outcome?: "approval_required" | "user_denied" | "cancelled";
  /** Why a call was denied without a rule (e.g. `active_dir_unusable`). */
  reason?: string;
  /** The ask was strict: keel could not check the call exactly, so only an explicit answer approves it. */
  strict?: true;
}

/**
 * An `ask` is put to a person (a terminal, an embedding program's approver) and keel waits for the answer;
 * written to disk first, so a resumed session whose process died meanwhile asks again instead of calling the
 * call's outcome unknown. Followed by `tool_execute` (approved) or `tool_permission` (refused).
 */
export interface ApprovalAskedEvent extends CallFields {
  type: "approval_asked";
}

/**
 * The call passed every check and the tool starts (side effects possible from here). One line
 * records the checks: `steps` names them in order, the other fields are what each decided.
 */
export interface ToolExecuteEvent extends CallFields {
  type: "tool_execute";
  /** The checks passed, in order (always all of them). */
  steps: readonly ToolCheck[];
  /** lookup: the base tool an alias resolved to (or the tool itself). */
  resolvedTool: string;
  /** lookup: the name called is an alias. */
  alias?: true;
  /** validate: the tool takes its input unvalidated (`validateInput: false`, e.g. a server schema ajv cannot compile). */
  unvalidated?: true;
  /** hook: guidance messages plugin `beforeTool` hooks added. */
  hookMessages?: number;
  /** permission: the decision (`allow`, or an `ask` that was approved). */
  action: "allow" | "ask";
  /** permission: who approved: `policy` for a plain allow; `user`, `session` or `--yes` for an `ask`. */
  approvedBy: string;
  /** permission: the rule that decided, as written in the config. */
  rule?: string;
}

/**
 * The call ended: the observation's outcome (always the call's last event). After `tool_execute`,
 * it also records what followed: `steps` names the steps the tool's result went through.
 */
export interface ToolObservationEvent extends CallFields {
  type: "tool_observation";
  ok: boolean;
  phase: ObservationPhase;
  code: ObservationCode;
  durationMs: number;
  /** The tool returned a result: `execute`, `normalize`, `truncate` (only `execute` when its output could not be stored). Absent when it never ran, failed, timed out or was cancelled. */
  steps?: readonly ToolStep[];
  /** normalize: artifacts written for binary or large parts. */
  artifacts?: number;
  /** truncate: characters of content the observation kept. */
  chars?: number;
  /** truncate: the content was cut (the full text is an artifact). */
  truncated?: true;
}

/** A plugin or runtime hook threw (caught: keel went on, failing closed where it vetoes). */
export interface HookErrorEvent {
  type: "hook_error";
  hook: string;
  message: string;
  callId?: string;
  tool?: string;
  /** The tap (plugin) that threw, when known. */
  tap?: string;
  sessionId?: string;
}

/** A Claude Code command hook ran (or could not start): what it returned and what keel made of it. */
export interface CommandHookEvent {
  type: "command_hook";
  /** Claude Code hook event, e.g. `PreToolUse`. */
  event: string;
  /** The hook's command line. */
  command: string;
  /** File the hook was declared in. */
  source: string;
  /** `null` when the process was killed (timeout, cancel) or could not start. */
  exitCode: number | null;
  timedOut?: true;
  /** The hook ran under the OS sandbox (the workspace's, under `sandbox.workspaceCommands`). */
  sandboxed?: true;
  durationMs: number;
  /** What keel did with the outcome: `none`, `block`, `deny`, `ask`, `allow`, `context`, `error`, `stop`. */
  decision: string;
  callId?: string;
  tool?: string;
  sessionId?: string;
}

/** keel could not write its own state on shutdown. */
export interface StateErrorEvent {
  type: "state_error";
  message: string;
}

/** A progress notification from an MCP server for a running call. */
export interface McpProgressEvent extends CallFields {
  type: "mcp_progress";
  server: string;
  progress: number;
  total?: number;
  message?: string;
}

/** An MCP server's elicitation request and how it was answered. */
export interface McpElicitationEvent {
  type: "mcp_elicitation";
  server: string;
  action: string;
  /** Why keel declined or cancelled on its own (URL mode, an answer that does not match the schema). */
  reason?: string;
}

/** A log message from an MCP server (secrets redacted). */
export interface McpLogEvent {
  type: "mcp_log";
  server: string;
  level: string;
  logger?: string;
  data: unknown;
}

/** An MCP server's tool list changed and was re-read. */
export interface McpToolsChangedEvent {
  type: "mcp_tools_changed";
  server: string;
  tools: number;
}

/** An MCP server error that is not a call's (e.g. re-listing tools failed). */
export interface McpErrorEvent {
  type: "mcp_error";
  server: string;
  message: string;
}

/** An MCP server failed (start-up, crash); `breakerOpen` once it is switched off. */
export interface McpServerFailedEvent {
  type: "mcp_server_failed";
  server: string;
  message: string;
  breakerOpen: boolean;
}

/** The events only MCP servers cause. */
export type McpEvent = McpProgressEvent | McpElicitationEvent | McpLogEvent | McpToolsChangedEvent | McpErrorEvent | McpServerFailedEvent;

/**
 * The pipeline's events of one call: `tool_intent`, then `tool_execute` or the event of the check
 * that refused the call, then `tool_observation`.
 */
export type PipelineEvent =
  | ToolIntentEvent
  | ToolLookupEvent
  | ToolVisibilityEvent
  | ToolValidateEvent
  | ToolHookEvent
  | ToolPermissionEvent
  | ApprovalAskedEvent
  | ToolExecuteEvent
  | ToolObservationEvent;

/** Any event without its timestamp, as passed to `EventSink.emit` (the sink adds `ts`). */
export type EventBody = PipelineEvent | HookErrorEvent | CommandHookEvent | StateErrorEvent | McpEvent | SessionEvent;

/** An event's `type`. */
export type KeelEventType = EventBody["type"];

/** One line of `events.jsonl`: an event and when it was recorded. */
export type KeelEvent = EventBody & { ts: number };

/** The event of one type. */
export type EventOf<T extends KeelEventType> = Extract<KeelEvent, { type: T }>;

/** What `emit` takes: an event, with `ts` optional (default: now). */
export type EventInput = EventBody & { ts?: number };
