import type { EventInput, EventOf, KeelEvent, KeelEventType } from "../../core/types.js";

/** An event outside keel's union, for tests of the sinks' serialization (a sink writes any JSON object). */
export function rawEvent(event: Record<string, unknown>): EventInput {
  return event as unknown as EventInput;
}

/** The events of one tool call (every event that carries this `callId`). */
export function eventsOfCall(events: KeelEvent[], callId: string): Extract<KeelEvent, { callId?: string }>[] {
  return events.filter((e): e is Extract<KeelEvent, { callId?: string }> => "callId" in e && e.callId === callId);
}

/** The events of one type, narrowed. */
export function eventsOfType<T extends KeelEventType>(events: KeelEvent[], type: T): EventOf<T>[] {
  return events.filter((e): e is EventOf<T> => e.type === type);
}
