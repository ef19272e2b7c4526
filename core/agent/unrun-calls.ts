import type { ModelToolCall } from "../model/model-types.js";
import type { ActiveSession } from "./active-session.js";

/**
 * Most tool calls of one model response keel runs. A response with thousands of calls (a prompt
 * injection, a hostile endpoint) would run them all in one step, past `agent.budgets.maxToolCalls`,
 * and log the pending list again after each one (hundreds of MB of session log): calls past this
 * many are answered "not run" instead, and the model can make them in its next response.
 */
export const MAX_CALLS_PER_RESPONSE = 100;

/** The result text of a call past `MAX_CALLS_PER_RESPONSE`. */
export const TOO_MANY_CALLS = `Not run: keel runs at most ${MAX_CALLS_PER_RESPONSE} tool calls of one response. Make the calls you still need in your next response.`;

/** The tool calls of the last assistant message that have no result yet (in their order). */
export function unansweredCalls(s: ActiveSession): ModelToolCall[] {
  const msgs = s.state.messages;
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i]!;
    if (m.role !== "assistant") continue;
    const answered = new Set(msgs.slice(i + 1).flatMap((r) => (r.role === "tool" ? [r.toolCallId] : [])));
    return (m.toolCalls ?? []).filter((c) => !answered.has(c.id));
  }
  return [];
}

/** Gives every call of the last assistant message without a result the result `content` (nothing is run). */
export function answerUnrun(s: ActiveSession, content: string): void {
  for (const call of unansweredCalls(s)) s.addMessage({ role: "tool", toolCallId: call.id, name: call.name, content });
}
