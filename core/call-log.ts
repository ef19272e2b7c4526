import { JsonlEventSink, jsonMember, jsonString } from "./events.js";
import type { EventSink, Observation } from "./types.js";

/**
 * The pipeline's events of one call. Into a JSONL sink they go as pre-built JSON text (the same
 * line `emit` writes for these fields); any other sink gets the event objects.
 */
export class CallLog {
  private readonly jsonl: JsonlEventSink | undefined;
  /** `"callId":…,"tool":…` as JSON members. */
  private readonly head: string;

  constructor(
    readonly events: EventSink,
    readonly callId: string,
    readonly tool: string,
  ) {
    this.jsonl = events instanceof JsonlEventSink ? events : undefined;
    this.head = this.jsonl ? `${member("callId", callId)}${member("tool", tool)}` : "";
  }

  intent(origin: string, sessionId: string | undefined): void {
    if (this.jsonl) this.jsonl.emitMembers(`"type":"tool_intent"${this.head}${member("origin", origin)}${member("sessionId", sessionId)}`);
    else this.events.emit({ type: "tool_intent", callId: this.callId, tool: this.tool, origin, sessionId });
  }

  found(resolvedTool: string, alias: boolean): void {
    if (this.jsonl) this.jsonl.emitMembers(`"type":"tool_lookup"${this.head},"found":true${member("resolvedTool", resolvedTool)}${alias ? `,"alias":true` : ""}`);
    else this.events.emit({ type: "tool_lookup", callId: this.callId, tool: this.tool, found: true, resolvedTool, alias: alias ? true : undefined });
  }

  visible(): void {
    if (this.jsonl) this.jsonl.emitMembers(`"type":"tool_visibility"${this.head},"visible":true`);
    else this.events.emit({ type: "tool_visibility", callId: this.callId, tool: this.tool, visible: true });
  }

  valid(skipped: boolean): void {
    if (this.jsonl) this.jsonl.emitMembers(`"type":"tool_validate"${this.head},"valid":true${skipped ? `,"skipped":true` : ""}`);
    else this.events.emit({ type: "tool_validate", callId: this.callId, tool: this.tool, valid: true, skipped: skipped ? true : undefined });
  }

  hookPassed(messages: number): void {
    if (this.jsonl) this.jsonl.emitMembers(`"type":"tool_hook"${this.head},"blocked":false${messages ? `,"messages":${messages}` : ""}`);
    else this.events.emit({ type: "tool_hook", callId: this.callId, tool: this.tool, blocked: false, messages: messages || undefined });
  }

  permitted(action: string, approvedBy: string, rule: string | undefined): void {
    if (this.jsonl) this.jsonl.emitMembers(`"type":"tool_permission"${this.head}${member("action", action)}${member("approvedBy", approvedBy)}${member("rule", rule)}`);
    else this.events.emit({ type: "tool_permission", callId: this.callId, tool: this.tool, action, approvedBy, rule });
  }

  executing(resolvedTool: string): void {
    if (this.jsonl) this.jsonl.emitMembers(`"type":"tool_execute"${this.head}${member("resolvedTool", resolvedTool)}`);
    else this.events.emit({ type: "tool_execute", callId: this.callId, tool: this.tool, resolvedTool });
  }

  result(ok: boolean): void {
    if (this.jsonl) this.jsonl.emitMembers(`"type":"tool_result"${this.head},"ok":${ok}`);
    else this.events.emit({ type: "tool_result", callId: this.callId, tool: this.tool, ok });
  }

  normalized(artifacts: number): void {
    if (this.jsonl) this.jsonl.emitMembers(`"type":"tool_normalize"${this.head}${artifacts ? `,"artifacts":${artifacts}` : ""}`);
    else this.events.emit({ type: "tool_normalize", callId: this.callId, tool: this.tool, artifacts: artifacts || undefined });
  }

  truncated(truncated: boolean, chars: number): void {
    if (this.jsonl) this.jsonl.emitMembers(`"type":"tool_truncate"${this.head},"truncated":${truncated},"chars":${chars}`);
    else this.events.emit({ type: "tool_truncate", callId: this.callId, tool: this.tool, truncated, chars });
  }

  observation(obs: Observation): void {
    if (this.jsonl && obs.tool === this.tool) {
      this.jsonl.emitMembers(`"type":"tool_observation"${this.head},"ok":${obs.ok}${member("phase", obs.phase)}${member("code", obs.code)},"durationMs":${obs.durationMs}${obs.truncated ? `,"truncated":true` : ""}`);
    } else {
      this.events.emit({ type: "tool_observation", callId: this.callId, tool: obs.tool, ok: obs.ok, phase: obs.phase, code: obs.code, durationMs: obs.durationMs, truncated: obs.truncated || undefined });
    }
  }
}

/** `,"key":value`, or "" when JSON omits the member. */
function member(key: string, value: unknown): string {
  const text = typeof value === "string" ? jsonString(value) : jsonMember(key, value);
  return text === undefined ? "" : `,"${key}":${text}`;
}

