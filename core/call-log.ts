import type { ToolCheck, ToolStep } from "./event-types.js";
import type { EventSink, Observation } from "./types.js";

/** Every check, in order: what a `tool_execute` line says the call passed. */
const CHECKS: readonly ToolCheck[] = Object.freeze(["lookup", "visibility", "validate", "hook", "permission"] as const);
/** The tool returned, but its output could not be stored. */
const RETURNED: readonly ToolStep[] = Object.freeze(["execute"] as const);
/** The tool returned and its result was normalised and truncated. */
const STORED: readonly ToolStep[] = Object.freeze(["execute", "normalize", "truncate"] as const);

/** What the checks decided for a call that passed them all. */
export interface Admission {
  resolvedTool: string;
  alias: boolean;
  /** The tool takes its input unvalidated (`validateInput: false`). */
  unvalidated: boolean;
  hookMessages: number;
  action: "allow" | "ask";
  approvedBy: string;
  rule: string | undefined;
}

/**
 * Records the pipeline's events of one call in three lines at most: `tool_intent`; `tool_execute`
 * naming every check passed (or, from the caller, the event of the check that refused the call);
 * and `tool_observation`, which also names the steps the tool's result went through. Each event
 * is made with its `ts` first, so the sink serializes it as made (no copy). `tool` is the called name.
 */
export class CallLog {
  private steps: readonly ToolStep[] | undefined;
  private artifacts = 0;
  private chars: number | undefined;

  constructor(
    readonly events: EventSink,
    readonly callId: string,
    readonly tool: string,
  ) {}

  /** The call entered the pipeline. */
  intent(origin: string, sessionId: string | undefined): void {
    this.events.emit({ ts: Date.now(), type: "tool_intent", callId: this.callId, tool: this.tool, origin, sessionId });
  }

  /** The call passed every check and the tool starts: one line with what each check decided. */
  executing(a: Admission): void {
    this.events.emit({
      ts: Date.now(),
      type: "tool_execute",
      callId: this.callId,
      tool: this.tool,
      steps: CHECKS,
      resolvedTool: a.resolvedTool,
      alias: a.alias || undefined,
      unvalidated: a.unvalidated || undefined,
      hookMessages: a.hookMessages || undefined,
      action: a.action,
      approvedBy: a.approvedBy,
      rule: a.rule,
    });
  }

  /** The tool returned a result (recorded on the observation line). */
  returned(): void {
    this.steps = RETURNED;
  }

  /** The result was normalised (`artifacts` written) and truncated to `chars` (recorded on the observation line). */
  stored(artifacts: number, chars: number): void {
    this.steps = STORED;
    this.artifacts = artifacts;
    this.chars = chars;
  }

  /** The call ended: its outcome, and the steps its result went through. */
  observation(obs: Observation): void {
    this.events.emit({
      ts: Date.now(),
      type: "tool_observation",
      callId: this.callId,
      tool: obs.tool,
      ok: obs.ok,
      phase: obs.phase,
      code: obs.code,
      durationMs: obs.durationMs,
      steps: this.steps,
      artifacts: this.artifacts || undefined,
      chars: this.chars,
      truncated: obs.truncated || undefined,
    });
  }
}
