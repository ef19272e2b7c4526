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
  /** Who called: `cli`, `agent`, `sub-agent`, `workflow:…`, `mcp-call-tool`, … */
  origin: string;
  sessionId?: string;
}

/** The name was looked up in the registry. */
export interface ToolLookupEvent extends CallFields {
  type: "tool_lookup";
  found: boolean;
  /** The base tool an alias resolved to (or the tool itself). */
  resolvedTool?: string;
  alias?: true;
}

/** The caller's visibility filter was checked. */
export interface ToolVisibilityEvent extends CallFields {
  type: "tool_visibility";
  visible: boolean;
}

/** The input was validated against the tool's schema. */
export interface ToolValidateEvent extends CallFields {
  type: "tool_validate";
  valid: boolean;
  /** The tool's schema could not be compiled, so the input was not validated. */
  skipped?: true;
  /** Why the schema could not be compiled (the call was refused). */
  schemaError?: string;
  /** What is wrong with the input. */
  problems?: string[];
}

/** Plugin `beforeTool` hooks ran. */
export interface ToolHookEvent extends CallFields {
  type: "tool_hook";
  blocked: boolean;
  /** The plugin that blocked the call. */
  by?: string;
  /** Guidance messages the hooks added. */
  messages?: number;
}

/** The permission decision. */
export interface ToolPermissionEvent extends CallFields {
  type: "tool_permission";
  action: "allow" | "ask" | "deny";
  /** Who approved an `ask`: `user`, `session`, `--yes`, or `none` for a plain allow. */
  approvedBy?: string;
  /** The rule that decided, as written in the config. */
  rule?: string;
  /** How an `ask` ended without running. */
  outcome?: "approval_required" | "user_denied" | "cancelled";
  /** Why a call was denied without a rule (e.g. `active_dir_unusable`). */
  reason?: string;
  /** The ask was strict: keel could not check the call exactly, so only an explicit answer approves it. */
  strict?: true;
}

/** The tool started running (side effects possible from here). */
export interface ToolExecuteEvent extends CallFields {
  type: "tool_execute";
  resolvedTool: string;
}

/** The tool returned (or failed, timed out, was cancelled). */
export interface ToolResultEvent extends CallFields {
  type: "tool_result";
  ok: boolean;
  code?: ObservationCode;
}

/** The result was normalised into an observation. */
export interface ToolNormalizeEvent extends CallFields {
  type: "tool_normalize";
  /** Artifacts written for binary or large parts. */
  artifacts?: number;
}

/** Truncation was applied to the content. */
export interface ToolTruncateEvent extends CallFields {
  type: "tool_truncate";
  truncated: boolean;
  chars: number;
}

/** The call ended: the observation's outcome (always the call's last event). */
export interface ToolObservationEvent extends CallFields {
  type: "tool_observation";
  ok: boolean;
  phase: ObservationPhase;
  code: ObservationCode;
  durationMs: number;
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

/** The pipeline's events of one call, in the order they are recorded. */
export type PipelineEvent =
  | ToolIntentEvent
  | ToolLookupEvent
  | ToolVisibilityEvent
  | ToolValidateEvent
  | ToolHookEvent
  | ToolPermissionEvent
  | ToolExecuteEvent
  | ToolResultEvent
  | ToolNormalizeEvent
  | ToolTruncateEvent
  | ToolObservationEvent;

/** Any event without its timestamp, as passed to `EventSink.emit` (the sink adds `ts`). */
export type EventBody = PipelineEvent | HookErrorEvent | StateErrorEvent | McpEvent | SessionEvent;

/** An event's `type`. */
export type KeelEventType = EventBody["type"];

/** One line of `events.jsonl`: an event and when it was recorded. */
export type KeelEvent = EventBody & { ts: number };

/** The event of one type. */
export type EventOf<T extends KeelEventType> = Extract<KeelEvent, { type: T }>;

/** What `emit` takes: an event, with `ts` optional (default: now). */
export type EventInput = EventBody & { ts?: number };
