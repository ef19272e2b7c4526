import { AsyncParallelHook, AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, SyncBailHook, SyncHook } from "tapable";
import { HookError } from "./errors.js";
import type { Host } from "./host.js";
import type { EventSink, Observation, RunContext, ToolDefinition, ToolIntent } from "./types.js";

/** Guidance text contributed by a plugin or runtime, tagged with its source. */
export interface GuidanceEntry {
  source: string;
  text: string;
}

/** Context of `beforeTool`: taps may push guidance to `messages`, or return a block decision. */
export interface BeforeToolContext {
  host: Host;
  intent: ToolIntent;
  /** The call's id (as in its events). */
  callId: string;
  /** Name the tool was called as. */
  calledAs: string;
  /** The resolved (base) tool. */
  tool: ToolDefinition;
  input: unknown;
  run: RunContext;
  /** `"<plugin>: <text>"` guidance lines collected from every matching tap. */
  messages: string[];
  /** Set by a tap to replace the input the tool runs with (validated against the tool's schema again). */
  updatedInput?: unknown;
  /**
   * Set by a tap to take part in the permission decision: `ask` turns an allowed call into one that
   * needs approval; `allow` approves an `ask` as an approval would (never a deny, never a strict ask).
   */
  permission?: HookPermission;
}

/** A hook's say in the permission decision of one call. */
export interface HookPermission {
  decision: "allow" | "ask";
  /** Who decided (a hook's source). */
  by: string;
  reason?: string;
}

/** Returned by a `beforeTool` tap to veto the call. */
export interface BlockDecision {
  block: true;
  /** Content of the `tool_blocked` observation. */
  message: string;
  /** Plugin or runtime that blocked. */
  by: string;
  metadata?: Record<string, unknown>;
}

/** Context of `afterResult` (a waterfall): taps return it, possibly with a changed observation. */
export interface AfterResultContext {
  host: Host;
  intent: ToolIntent;
  calledAs: string;
  tool: ToolDefinition | undefined;
  input: unknown;
  run: RunContext;
  observation: Observation;
}

/** Context of `registerTools`: taps register tools and aliases on `host.registry`. */
export interface RegisterToolsContext {
  host: Host;
}

/** `beforePrompt` / `onResume` waterfall: taps push guidance that reaches the model. */
export interface PromptContext {
  host: Host;
  sessionId?: string;
  /** The system prompt; taps may rewrite it. */
  system: string;
  /** Plugin texts shown before the user prompt. */
  guidance: GuidanceEntry[];
  resume: boolean;
}

/** `afterTurn`: a notification at the end of each user turn (never sent to the model). */
export interface AfterTurnContext {
  host: Host;
  sessionId?: string;
  reason: string;
  /** Texts of plugins' afterTurn hooks, recorded as events. */
  notes: GuidanceEntry[];
}

/** `beforePersist`: fired on every session save; taps add markers recorded in the transcript. */
export interface PersistContext {
  host: Host;
  sessionId?: string;
  markers: GuidanceEntry[];
}

/** `beforeDelegate` waterfall: taps may extend the child's prompt (prefix texts). */
export interface DelegateContext {
  host: Host;
  sessionId?: string;
  prompt: string;
  prefix: GuidanceEntry[];
}

/** `afterDelegate` waterfall: taps may append texts to the child's result. */
export interface DelegateResultContext {
  host: Host;
  sessionId?: string;
  childSessionId?: string;
  result: string;
  suffix: GuidanceEntry[];
}

/** `toolsChanged`: the registry gained or lost tools (MCP list_changed, disconnect). */
export interface ToolsChangedContext {
  host: Host;
  source: string;
  added: string[];
  removed: string[];
}

/** `unknownTool`: asks a runtime why a name is not in the registry (e.g. its MCP server awaits a login). */
export interface UnknownToolQuery {
  host: Host;
  /** The name as called. */
  name: string;
}

/** `toolBlocked`: asks whether a tool is blocked without calling it (for `keel tools`, hiding from the model). */
export interface ToolBlockedQuery {
  host: Host;
  /** Name as listed (an alias name for aliases). */
  calledAs: string;
  /** The resolved base tool. */
  tool: ToolDefinition;
}

/** `userPromptSubmit`: taps may add context for the model, or block the prompt. */
export interface UserPromptContext {
  host: Host;
  sessionId: string;
  prompt: string;
  cwd: string;
  /** True for a sub-agent's prompt (given by its parent, not typed by the user). */
  subagent: boolean;
  /** Texts added before the prompt reaches the model. */
  context: GuidanceEntry[];
  /** The session's event log (events of hooks that ran go there). */
  events?: EventSink;
  /** Set by a tap to refuse the prompt: the model never sees it. */
  blocked?: { by: string; message: string };
}

/** `agentStop`: the agent is about to end its turn; a tap may ask it to go on with a reason. */
export interface AgentStopContext {
  host: Host;
  sessionId: string;
  /** True for a sub-agent (`SubagentStop`). */
  subagent: boolean;
  /** A sub-agent's type (`delegate_agent` `agent`, as frozen into its session); undefined for the default sub-agent and the main agent. */
  agentType?: string;
  /** True when the turn already went on because of a stop hook (guards against loops). */
  stopHookActive: boolean;
  cwd: string;
  /** The session's event log. */
  events?: EventSink;
  /** Set by a tap: the agent continues with this text as a user message. */
  continueWith?: { by: string; reason: string };
}

/** `beforeCompact`: the agent is about to compact its history (a notification). */
export interface CompactContext {
  host: Host;
  sessionId: string;
  cwd: string;
  events?: EventSink;
  /** `auto`: the context grew past `agent.compactAt`. */
  trigger: "auto" | "manual";
}

/** `notification`: keel needs the user (an approval is asked or a session paused for one); taps may tell them elsewhere. */
export interface NotificationContext {
  host: Host;
  sessionId?: string;
  cwd: string;
  events?: EventSink;
  message: string;
  /** What needs the user: `permission_prompt`. */
  kind: "permission_prompt";
}

/** Session boundary notification. */
export interface SessionContext {
  host: Host;
  sessionId: string;
  /** The session's working directory (agent sessions). */
  cwd?: string;
  /** The session's event log (agent sessions). */
  events?: EventSink;
  /** True for a sub-agent's session (`delegate_agent`). */
  subagent?: boolean;
  /** `sessionStart`: `startup` for a new session, `resume` when `keel run --resume` continues one. */
  source?: "startup" | "resume";
  /** `sessionStart`: texts taps add for the model (a user message before the first prompt). */
  context?: GuidanceEntry[];
}

/** Creates the host's hooks. Frozen: hooks are declared here once; taps are added by plugins. */
export function createHooks() {
  const hooks = {
    registerTools: new AsyncSeriesHook<[RegisterToolsContext]>(["context"]),
    beforeTool: new AsyncSeriesBailHook<[BeforeToolContext], BlockDecision | undefined>(["context"]),
    afterResult: new AsyncSeriesWaterfallHook<[AfterResultContext]>(["context"]),
    beforePrompt: new AsyncSeriesWaterfallHook<[PromptContext]>(["context"]),
    onResume: new AsyncSeriesWaterfallHook<[PromptContext]>(["context"]),
    afterTurn: new AsyncSeriesHook<[AfterTurnContext]>(["context"]),
    beforePersist: new AsyncSeriesHook<[PersistContext]>(["context"]),
    beforeDelegate: new AsyncSeriesWaterfallHook<[DelegateContext]>(["context"]),
    afterDelegate: new AsyncSeriesWaterfallHook<[DelegateResultContext]>(["context"]),
    toolsChanged: new SyncHook<[ToolsChangedContext]>(["context"]),
    toolBlocked: new SyncBailHook<[ToolBlockedQuery], BlockDecision | undefined>(["context"]),
    unknownTool: new SyncBailHook<[UnknownToolQuery], string | undefined>(["context"]),
    sessionStart: new AsyncSeriesHook<[SessionContext]>(["context"]),
    userPromptSubmit: new AsyncSeriesHook<[UserPromptContext]>(["context"]),
    agentStop: new AsyncSeriesHook<[AgentStopContext]>(["context"]),
    beforeCompact: new AsyncSeriesHook<[CompactContext]>(["context"]),
    notification: new AsyncSeriesHook<[NotificationContext]>(["context"]),
    sessionEnd: new AsyncSeriesHook<[SessionContext]>(["context"]),
    /** Fired by `host.close()`: stop child processes, flush state. */
    shutdown: new AsyncParallelHook<[{ host: Host }]>(["context"]),
  };
  for (const [name, hook] of Object.entries(hooks)) nameTapErrors(name, hook);
  return Object.freeze(hooks);
}

/** The host's hook set. */
export type KeelHooks = ReturnType<typeof createHooks>;

/**
 * Wraps every tap so an error it throws becomes a `HookError` naming the tap and hook.
 * Callers decide what failure means (the pipeline fails closed).
 */
function nameTapErrors(hookName: string, hook: { intercept(i: object): void }): void {
  hook.intercept({
    register(tap: { name: string; type: string; fn: (...args: unknown[]) => unknown }) {
      const fn = tap.fn;
      const wrapErr = (error: unknown) => (error instanceof HookError ? error : new HookError(hookName, tap.name, error));
      if (tap.type === "promise") {
        tap.fn = (...args: unknown[]) => {
          try {
            return Promise.resolve(fn(...args)).catch((error) => {
              throw wrapErr(error);
            });
          } catch (error) {
            return Promise.reject(wrapErr(error));
          }
        };
      } else if (tap.type === "sync") {
        tap.fn = (...args: unknown[]) => {
          try {
            return fn(...args);
          } catch (error) {
            throw wrapErr(error);
          }
        };
      }
      return tap;
    },
  });
}
