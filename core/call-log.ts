import type { ToolPermissionEvent } from "./event-types.js";
import type { EventSink, Observation } from "./types.js";

/**
 * Records the pipeline's events of one call, one event object per step, as each step happens
 * (`tool_intent` … `tool_observation`); the sink serializes each once. `tool` is the called name.
 */
export class CallLog {
  constructor(
    readonly events: EventSink,
    readonly callId: string,
    readonly tool: string,
  ) {}

  intent(origin: string, sessionId: string | undefined): void {
    this.events.emit({ type: "tool_intent", callId: this.callId, tool: this.tool, origin, sessionId });
  }

  found(resolvedTool: string, alias: boolean): void {
    this.events.emit({ type: "tool_lookup", callId: this.callId, tool: this.tool, found: true, resolvedTool, alias: alias || undefined });
  }

  visible(): void {
    this.events.emit({ type: "tool_visibility", callId: this.callId, tool: this.tool, visible: true });
  }

  valid(skipped: boolean): void {
    this.events.emit({ type: "tool_validate", callId: this.callId, tool: this.tool, valid: true, skipped: skipped || undefined });
  }

  hookPassed(messages: number): void {
    this.events.emit({ type: "tool_hook", callId: this.callId, tool: this.tool, blocked: false, messages: messages || undefined });
  }

  permitted(action: ToolPermissionEvent["action"], approvedBy: string, rule: string | undefined): void {
    this.events.emit({ type: "tool_permission", callId: this.callId, tool: this.tool, action, approvedBy, rule });
  }

  executing(resolvedTool: string): void {
    this.events.emit({ type: "tool_execute", callId: this.callId, tool: this.tool, resolvedTool });
  }

  result(ok: boolean): void {
    this.events.emit({ type: "tool_result", callId: this.callId, tool: this.tool, ok });
  }

  normalized(artifacts: number): void {
    this.events.emit({ type: "tool_normalize", callId: this.callId, tool: this.tool, artifacts: artifacts || undefined });
  }

  truncated(truncated: boolean, chars: number): void {
    this.events.emit({ type: "tool_truncate", callId: this.callId, tool: this.tool, truncated, chars });
  }

  observation(obs: Observation): void {
    this.events.emit({
      type: "tool_observation",
      callId: this.callId,
      tool: obs.tool,
      ok: obs.ok,
      phase: obs.phase,
      code: obs.code,
      durationMs: obs.durationMs,
      truncated: obs.truncated || undefined,
    });
  }
}
