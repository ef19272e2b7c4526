import type { Host } from "./host.js";

/** A JSON Schema object as received from manifests, servers or tool definitions. */
export type JsonSchema = Record<string, unknown>;

/** Risk tags drive default permissions: `read` is allowed, everything else asks. */
export type RiskTag = "read" | "write" | "execute" | "network" | "delegate";

/** Where a tool came from; `id` names the plugin, runtime or MCP server. */
export interface ToolSource {
  kind: "builtin" | "runtime" | "plugin" | "mcp";
  id: string;
}

/** Observation codes: the architecture's fixed vocabulary (section 4). */
export type ObservationCode =
  | "ok"
  | "unknown_tool"
  | "tool_not_visible"
  | "tool_blocked"
  | "schema_invalid"
  | "precondition_failed"
  | "permission_denied"
  | "approval_required"
  | "user_denied"
  | "execution_failed"
  | "timeout"
  | "cancelled";

/** Pipeline phases, in order; `done` marks success. */
export type ObservationPhase = "lookup" | "visibility" | "validate" | "hook" | "permission" | "execute" | "done";

/** Full output kept on disk when it was truncated or binary. `path` is workspace-relative. */
export interface ArtifactRef {
  kind: string;
  path: string;
  mimeType?: string;
  bytes?: number;
}

/** Plugin guidance attached to an observation. */
export interface ObservationMessages {
  beforeTool: string[];
  afterResult: string[];
}

/** What every tool call returns (architecture section 4). Printed by `keel call --json`. */
export interface Observation {
  ok: boolean;
  tool: string;
  phase: ObservationPhase;
  code: ObservationCode;
  content: string;
  data: unknown;
  metadata: Record<string, unknown>;
  messages: ObservationMessages;
  truncated: boolean;
  artifacts: ArtifactRef[];
  durationMs: number;
}

/** Binary payload a tool returns; the pipeline stores it as an artifact, never as text. */
export interface BinaryPart {
  data: Buffer;
  mimeType: string;
  kind?: string;
}

/** What a tool's `execute` resolves to. Failures may also be thrown as `ToolError`. */
export interface ToolResult {
  /** Text the model sees. */
  content: string;
  /** Structured result. */
  data?: unknown;
  metadata?: Record<string, unknown>;
  /** `false` marks a failure (e.g. non-zero exit); the observation ends in `execute`. Default true. */
  ok?: boolean;
  /** Code for a failure; default `execution_failed`. */
  code?: ObservationCode;
  /** Binary parts (images, audio, blobs) to keep as artifacts. */
  binary?: BinaryPart[];
  /** Artifacts the tool already wrote itself. */
  artifacts?: ArtifactRef[];
  /**
   * For a failed result of a tool that delegates to another call through the pipeline (as
   * `mcp_call_tool` does): the phase that call ended in, when it ended before executing anything
   * (`validate`, `hook`, `permission`, ...), so the observation keeps saying no side effect happened.
   */
  phase?: Exclude<ObservationPhase, "done" | "execute">;
  /** True when the tool itself had to cut its output (e.g. a command past its output cap): the observation says `truncated: true` even when the content fits. */
  truncated?: boolean;
}

/** Everything a tool may use while it runs. Built by the pipeline for each call. */
export interface ToolContext {
  /** Aborted on cancel or timeout; forward it to every I/O. */
  signal: AbortSignal;
  /**
   * Runs `listener` once with the abort reason if the call is cancelled or times out (at once if it
   * already was). The cheap alternative to `signal` on a hot path: the signal's AbortController is
   * created on first read, a measurable share of a fast call.
   */
  onStop(listener: (reason: unknown) => void): void;
  host: Host;
  /** Directory relative paths resolve against (where keel was started, or the active worktree). */
  cwd: string;
  /** Boundary every path must stay inside: the workspace root, or the managed worktree `cwd` lies in. */
  root: string;
  /** Unique id of this call. */
  callId: string;
  /** Session the call belongs to, when run by the agent loop. */
  sessionId?: string;
  /** Name the tool was called as (an alias name for aliases). */
  calledAs: string;
  /** Read-before-edit baselines (session-scoped or `.keel/state` for standalone calls). */
  fileBaselines: FileBaselineStore;
  /** The run context the call came with (for nested calls, e.g. workflows). */
  run: RunContext;
}

/**
 * A tool in the one registry. `I` is the input `execute` receives: the pipeline has validated it
 * against `inputSchema` first. Built-in and runtime tools derive `I` from their schema literal
 * (`InputOf<typeof SCHEMA>`, written once); tools whose schema arrives at run time (MCP, plugins)
 * take `unknown` and narrow.
 */
export interface ToolDefinition<I = unknown> {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  source: ToolSource;
  risk: RiskTag[];
  readOnly: boolean;
  /** Input field a permission rule's argument specifier matches, e.g. `command` for bash. */
  permissionKey?: string;
  /** How the specifier matches: `path` uses globs with `**`, `text` uses `*` as any text. Default `text`. */
  permissionMatch?: "path" | "text";
  /**
   * A path tool that writes: the whole text the call would leave in the file, given its current text
   * (undefined when the file does not exist), or undefined when it cannot tell. The permission layer
   * uses it to see whether a write changes package.json's `keel` field (core/control-files.ts).
   */
  nextText?(input: I, current: string | undefined): string | undefined;
  /**
   * A tool that writes keel's settings by key rather than by path (`config_set`): what the call would
   * change that can widen what keel runs or allows (`file`, and `what` its change decides), or
   * undefined. Such a call asks as a write to a control file does: allow rules never approve it.
   */
  controlWrite?(input: I): { file: string; what: string } | undefined;
  /** Max characters of `content` before truncation; default from config (`output.maxChars`). */
  outputBudget?: number;
  /** Default execution timeout in milliseconds (0 disables). */
  timeoutMs?: number;
  /** False when the input schema could not be compiled (the tool stays callable without validation). */
  validateInput?: boolean;
  /** Extra metadata merged into every observation of this tool (e.g. `server_name`). */
  metadata?: Record<string, unknown>;
  execute(input: I, ctx: ToolContext): Promise<ToolResult>;
}

/** An alias: another name for a base tool, with the base tool's schema and behaviour. */
export interface ToolAlias {
  name: string;
  target: string;
  description?: string;
  source: ToolSource;
  /** Who registered it: `user` (a user-level plugin) or `workspace` (default: the least trusted). */
  level?: "user" | "workspace";
}

/** A request to call a tool. */
export interface ToolIntent {
  tool: string;
  input: unknown;
  callId?: string;
}

/** A decision a permission prompt returns. */
export type ApprovalAnswer = "yes" | "no" | "always";

/** A pending approval shown to the user. */
export interface ApprovalRequest {
  tool: string;
  resolvedTool: string;
  input: unknown;
  risk: RiskTag[];
  rule?: string;
  reason: string;
}

/** Asks the user (TTY) to approve a call. Absent in non-interactive runs. */
export interface Approver {
  approve(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer>;
}

/** Read-before-edit baselines: what a file looked like when it was last read. */
export interface FileBaseline {
  size: number;
  mtimeMs: number;
  hash: string;
}

/** Stores baselines by absolute path. */
export interface FileBaselineStore {
  get(absPath: string): Promise<FileBaseline | undefined>;
  set(absPath: string, baseline: FileBaseline): Promise<void>;
}

/**
 * Who calls a tool, as recorded in `tool_intent` events: `cli`, `agent`, `workflow:NAME>…`, `mcp-serve`
 * (a client of `keel mcp serve`), `api` (the default); other strings are allowed for embedders.
 */
export type CallOrigin = "api" | "cli" | "agent" | "mcp-serve" | `workflow:${string}` | (string & {});

/** Options a caller passes to `runToolIntent`. Everything is optional. */
export interface RunContext {
  signal?: AbortSignal;
  /**
   * Ask MCP servers for progress notifications (they become `mcp_progress` events): `true` always,
   * `false` never. Default: on a tool's first call, and afterwards only from tools that reported
   * progress (a progress token is a measurable share of a fast call, and most tools never use it).
   */
  progress?: boolean;
  /** `--yes`: approve every `ask` (deny rules still win). */
  yes?: boolean;
  /**
   * The user already answered yes to this very call (`keel sessions approve`): its `ask` is settled as
   * the user's answer, a strict one too (as any explicit answer is), and recorded as approved by `user`. `"always"`: the
   * answer was "always" (`keel chat`'s question about a paused call): the tool also joins `sessionAllow`, as a terminal's
   * "always" does, unless the call is a strict ask.
   */
  userApproved?: boolean | "always";
  approver?: Approver;
  /** When set, only these tool names are visible (sub-agents, tool search). */
  isVisible?: (name: string) => boolean;
  /**
   * When set, what this call starts in turn may use only these tools: a workflow's prompt steps and
   * prompt commands (their model turns, and a command's shell lines and `@file`s) run with them alone.
   * `keel mcp serve --tools` sets its served tools. The workflow's own tool and `run` steps are not bounded.
   */
  toolBound?: (name: string) => boolean;
  sessionId?: string;
  /** Who is calling (recorded in `tool_intent` events). */
  origin?: CallOrigin;
  /**
   * Whether a model reads what the call returns, where the origin alone does not say (a workflow's
   * steps: the user or a model started the run); default: see modelReads. A model is told to ask the
   * user to run `keel trust`, never a way to trust for one run.
   */
  readByModel?: boolean;
  /** Event sink for this call; defaults to the host's. */
  events?: EventSink;
  /** Baselines for this call; defaults to the host's standalone store. */
  fileBaselines?: FileBaselineStore;
  /** Approvals remembered for the session ("always"). */
  sessionAllow?: Set<string>;
  /** Working directory override (defaults to the host's active directory). */
  cwd?: string;
  /** Answers elicitations upstream MCP servers send during this call (`keel mcp serve` forwards them to its client); default: the MCP runtime's policy. */
  elicit?: CallElicitor;
}

/**
 * Answers an upstream MCP server's `elicitation/create` for one call (the MCP runtime's `Elicitor`
 * shape). `scope`: elicitors with the same scope reach the same person (one client session), so a
 * server's question may go to them while only their calls are in flight.
 */
export type CallElicitor = ((
  request: { server: string; message: string; mode?: string; requestedSchema?: { properties?: Record<string, object>; required?: string[] } },
  signal: AbortSignal,
) => Promise<{ action: "accept" | "decline" | "cancel"; content?: Record<string, string | number | boolean | string[]> }>) & {
  waitsForUser?: boolean;
  scope?: object;
};

export type { EventBody, EventInput, EventOf, KeelEvent, KeelEventType } from "./event-types.js";
import type { EventInput } from "./event-types.js";

/** Appends events; implementations must persist each event before `flush` returns. */
export interface EventSink {
  /** Records one event; `ts` defaults to now. The sink may serialize it later in this event-loop turn: never change an event after emitting it. */
  emit(event: EventInput): void;
  /** Writes buffered events to disk now (synchronously durable against process crashes; with `durable`, fsynced against machine crashes). */
  flush(durable?: boolean): void;
  /**
   * Writes buffered events soon (a batched `flush`: JsonlEventSink writes within a few ms, sharing
   * the write with other calls that end meanwhile). Sinks without it are flushed instead.
   */
  commit?(): void;
  /**
   * Resolves once everything buffered so far is written as `flush()` writes it (rejects with the
   * write's error): calls that ask in the same burst share one write. Sinks without it are flushed.
   */
  flushed?(): Promise<void>;
}
