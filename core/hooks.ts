import { AsyncParallelHook, AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, SyncBailHook, SyncHook } from "tapable";
import { HookError } from "./errors.js";
import type { Host } from "./host.js";
import type { Observation, RunContext, ToolDefinition, ToolIntent } from "./types.js";

/** Guidance text contributed by a plugin or runtime, tagged with its source. */
export interface GuidanceEntry {
  source: string;
  text: string;
}

/** Context of `beforeTool`: taps may push guidance to `messages`, or return a block decision. */
export interface BeforeToolContext {
  host: Host;
  intent: ToolIntent;
  /** Name the tool was called as. */
  calledAs: string;
  /** The resolved (base) tool. */
  tool: ToolDefinition;
  input: unknown;
  run: RunContext;
  /** `"<plugin>: <text>"` guidance lines collected from every matching tap. */
  messages: string[];
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

/** `toolBlocked`: asks whether a tool is blocked without calling it (for `keel tools`, hiding from the model). */
export interface ToolBlockedQuery {
  host: Host;
  /** Name as listed (an alias name for aliases). */
  calledAs: string;
  /** The resolved base tool. */
  tool: ToolDefinition;
}

/** Session boundary notification. */
export interface SessionContext {
  host: Host;
  sessionId: string;
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
    sessionStart: new AsyncSeriesHook<[SessionContext]>(["context"]),
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
