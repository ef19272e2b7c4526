import { jsonMember, jsonString } from "./events.js";
import type { ToolPermissionEvent } from "./event-types.js";
import type { EventSegment, EventSink, KeelEvent, Observation, SegmentSink } from "./types.js";

/** The pipeline's event types, in the order a call records them (the index is the kind). */
const TYPES = [
  "tool_intent",
  "tool_lookup",
  "tool_visibility",
  "tool_validate",
  "tool_hook",
  "tool_permission",
  "tool_execute",
  "tool_result",
  "tool_normalize",
  "tool_truncate",
  "tool_observation",
] as const;
/** `,"type":"…",` for each kind. */
const TYPE_MEMBERS = TYPES.map((t) => `,"type":"${t}",`);
const INTENT = 0,
  LOOKUP = 1,
  VISIBLE = 2,
  VALID = 3,
  HOOK = 4,
  PERMISSION = 5,
  EXECUTE = 6,
  RESULT = 7,
  NORMALIZE = 8,
  TRUNCATE = 9,
  OBSERVATION = 10;

/**
 * The pipeline's events of one call. A sink that takes segments (both built-in sinks do) gets the
 * call's events as a compact record it renders when it writes (JSONL) or is read (memory): the
 * call pays for field assignments, not for JSON text or event objects, on its way to the tool.
 * Any other sink gets fresh event objects at once. Either way the events are the same, with the
 * timestamp taken when each was recorded.
 */
export class CallLog {
  private readonly segments: SegmentSink | undefined;
  private segment: CallSegment | undefined;
  /** When each kind was recorded (ms since the epoch). */
  private readonly ts: number[] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
  private origin = "";
  private sessionId: string | undefined;
  private resolvedTool = "";
  private alias = false;
  private skipped = false;
  private hookMessages = 0;
  private action: ToolPermissionEvent["action"] = "allow";
  private approvedBy = "";
  private rule: string | undefined;
  private executed = "";
  private ok = false;
  private artifacts = 0;
  private cut = false;
  private chars = 0;
  private obs: Pick<Observation, "ok" | "phase" | "code" | "durationMs" | "truncated"> | undefined;

  constructor(
    readonly events: EventSink,
    readonly callId: string,
    readonly tool: string,
  ) {
    const s = events as Partial<SegmentSink>;
    this.segments = s.appendSegment && s.isLastSegment ? (events as SegmentSink) : undefined;
  }

  intent(origin: string, sessionId: string | undefined): void {
    this.origin = origin;
    this.sessionId = sessionId;
    this.record(INTENT);
  }

  found(resolvedTool: string, alias: boolean): void {
    this.resolvedTool = resolvedTool;
    this.alias = alias;
    this.record(LOOKUP);
  }

  visible(): void {
    this.record(VISIBLE);
  }

  valid(skipped: boolean): void {
    this.skipped = skipped;
    this.record(VALID);
  }

  hookPassed(messages: number): void {
    this.hookMessages = messages;
    this.record(HOOK);
  }

  permitted(action: ToolPermissionEvent["action"], approvedBy: string, rule: string | undefined): void {
    this.action = action;
    this.approvedBy = approvedBy;
    this.rule = rule;
    this.record(PERMISSION);
  }

  executing(resolvedTool: string): void {
    this.executed = resolvedTool;
    this.record(EXECUTE);
  }

  result(ok: boolean): void {
    this.ok = ok;
    this.record(RESULT);
  }

  normalized(artifacts: number): void {
    this.artifacts = artifacts;
    this.record(NORMALIZE);
  }

  truncated(truncated: boolean, chars: number): void {
    this.cut = truncated;
    this.chars = chars;
    this.record(TRUNCATE);
  }

  observation(obs: Observation): void {
    if (obs.tool !== this.tool) {
      // Renamed by the pipeline (never today): not expressible in this call's record.
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
      return;
    }
    this.obs = { ok: obs.ok, phase: obs.phase, code: obs.code, durationMs: obs.durationMs, truncated: obs.truncated };
    this.record(OBSERVATION);
  }

  /** The event of `kind` as an object (`ts` first), as `emit` would have been given it. */
  eventOf(kind: number): KeelEvent {
    const ts = this.ts[kind]!;
    const { callId, tool } = this;
    switch (kind) {
      case INTENT:
        return { ts, type: "tool_intent", callId, tool, origin: this.origin, sessionId: this.sessionId };
      case LOOKUP:
        return { ts, type: "tool_lookup", callId, tool, found: true, resolvedTool: this.resolvedTool, alias: this.alias ? true : undefined };
      case VISIBLE:
        return { ts, type: "tool_visibility", callId, tool, visible: true };
      case VALID:
        return { ts, type: "tool_validate", callId, tool, valid: true, skipped: this.skipped ? true : undefined };
      case HOOK:
        return { ts, type: "tool_hook", callId, tool, blocked: false, messages: this.hookMessages || undefined };
      case PERMISSION:
        return { ts, type: "tool_permission", callId, tool, action: this.action, approvedBy: this.approvedBy, rule: this.rule };
      case EXECUTE:
        return { ts, type: "tool_execute", callId, tool, resolvedTool: this.executed };
      case RESULT:
        return { ts, type: "tool_result", callId, tool, ok: this.ok };
      case NORMALIZE:
        return { ts, type: "tool_normalize", callId, tool, artifacts: this.artifacts || undefined };
      case TRUNCATE:
        return { ts, type: "tool_truncate", callId, tool, truncated: this.cut, chars: this.chars };
      default: {
        const o = this.obs!;
        return {
          ts,
          type: "tool_observation",
          callId,
          tool,
          ok: o.ok,
          phase: o.phase,
          code: o.code,
          durationMs: o.durationMs,
          truncated: o.truncated || undefined,
        };
      }
    }
  }

  /** The JSONL line of `kind`: exactly `JSON.stringify(this.eventOf(kind))` and a newline. */
  lineOf(kind: number): string {
    // Action, approval and phase are keel's own identifiers: no escaping needed (a code may come from a tool).
    const head = `{"ts":${this.tsText(kind)}${TYPE_MEMBERS[kind]}${this.head()}`;
    switch (kind) {
      case INTENT:
        return `${head},"origin":${jsonString(this.origin)}${this.sessionId === undefined ? "" : `,"sessionId":${jsonString(this.sessionId)}`}}\n`;
      case LOOKUP:
        return `${head},"found":true,"resolvedTool":${this.toolText(this.resolvedTool)}${this.alias ? `,"alias":true` : ""}}\n`;
      case VISIBLE:
        return `${head},"visible":true}\n`;
      case VALID:
        return this.skipped ? `${head},"valid":true,"skipped":true}\n` : `${head},"valid":true}\n`;
      case HOOK:
        return this.hookMessages ? `${head},"blocked":false,"messages":${this.hookMessages}}\n` : `${head},"blocked":false}\n`;
      case PERMISSION:
        return `${head},"action":"${this.action}","approvedBy":"${this.approvedBy}"${this.rule === undefined ? "" : `,"rule":${jsonString(this.rule)}`}}\n`;
      case EXECUTE:
        return `${head},"resolvedTool":${this.toolText(this.executed)}}\n`;
      case RESULT:
        return this.ok ? `${head},"ok":true}\n` : `${head},"ok":false}\n`;
      case NORMALIZE:
        return this.artifacts ? `${head},"artifacts":${this.artifacts}}\n` : `${head}}\n`;
      case TRUNCATE:
        return `${head},"truncated":${this.cut},"chars":${this.chars}}\n`;
      default: {
        const o = this.obs!;
        return `${head},"ok":${o.ok},"phase":"${o.phase}","code":${jsonString(o.code)},"durationMs":${jsonMember("durationMs", o.durationMs)}${o.truncated ? `,"truncated":true` : ""}}\n`;
      }
    }
  }

  private headText: string | undefined;
  private toolJson: string | undefined;
  private lastTs = 0;
  private lastTsText = "";

  /** `"callId":…,"tool":…` as JSON members (built once). */
  private head(): string {
    return (this.headText ??= `"callId":${jsonString(this.callId)},"tool":${this.toolText(this.tool)}`);
  }

  /** A tool name as JSON (the called name's text is built once). */
  private toolText(name: string): string {
    if (name !== this.tool) return jsonString(name);
    return (this.toolJson ??= jsonString(name));
  }

  /** The timestamp of `kind` as text (most of a call's events share the millisecond). */
  private tsText(kind: number): string {
    const ts = this.ts[kind]!;
    if (ts !== this.lastTs) {
      this.lastTs = ts;
      this.lastTsText = String(ts);
    }
    return this.lastTsText;
  }

  private record(kind: number): void {
    this.ts[kind] = Date.now();
    const sink = this.segments;
    if (!sink) {
      this.events.emit(this.eventOf(kind));
      return;
    }
    // Events emitted by others since this call's last one (or a write) start a new segment, so order holds.
    if (!this.segment || !sink.isLastSegment(this.segment)) {
      this.segment = new CallSegment(this);
      sink.appendSegment(this.segment);
    }
    this.segment.kinds |= 1 << kind;
  }
}

/** A run of one call's consecutive events, held by a sink until it renders or expands them. */
class CallSegment implements EventSegment {
  /** Bit `k` set: the event of kind `k` belongs to this segment. */
  kinds = 0;

  constructor(private readonly log: CallLog) {}

  /** The JSONL lines of this segment's events, in order. */
  lines(): string {
    let out = "";
    for (let k = 0, bits = this.kinds; bits !== 0; k++, bits >>>= 1) if (bits & 1) out += this.log.lineOf(k);
    return out;
  }

  /** This segment's events as objects, in order. */
  toEvents(): KeelEvent[] {
    const out: KeelEvent[] = [];
    for (let k = 0, bits = this.kinds; bits !== 0; k++, bits >>>= 1) if (bits & 1) out.push(this.log.eventOf(k));
    return out;
  }
}
