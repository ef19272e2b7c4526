import type { ChatMessage } from "../model/model-types.js";
import { validConversation } from "../model/valid-conversation.js";
import type { ActiveSession } from "./active-session.js";

/**
 * Makes the session's conversation one a chat-completions endpoint accepts before it is sent (see
 * `validConversation`): a stored session broken by an older keel or an edited log would otherwise be
 * refused (HTTP 400) on every resume. Each changed step (an assistant message and what follows it up to
 * the next one) is appended to the log as a `session_edit` of its own — never one entry for the whole
 * history, which a long session would make larger than keel reads of one line — with one
 * `conversation_repaired` event; no file is rewritten. Nothing happens when the conversation is already
 * valid. Returns whether it repaired something.
 */
export function repairConversation(s: ActiveSession): boolean {
  const current = s.state.messages as readonly ChatMessage[];
  const { messages, repairs } = validConversation(current);
  if (!repairs) return false;
  // The repair keeps every assistant message in its place: the steps of both lists correspond one to one.
  const before = steps(current);
  const after = steps(messages);
  if (before.length !== after.length) {
    s.editMessages(0, current.length, [...messages]);
    s.emit("conversation_repaired", repairs);
    return true;
  }
  let at = 0;
  before.forEach((old, k) => {
    const fixed = after[k] ?? [];
    if (old.length !== fixed.length || old.some((m, j) => m !== fixed[j])) s.editMessages(at, old.length, fixed);
    at += fixed.length;
  });
  s.emit("conversation_repaired", repairs);
  return true;
}

/** `messages` cut before each assistant message (the first piece holds what comes before the first). */
function steps(messages: readonly ChatMessage[]): ChatMessage[][] {
  const out: ChatMessage[][] = [[]];
  for (const m of messages) {
    if (m.role === "assistant") out.push([]);
    out[out.length - 1]!.push(m);
  }
  return out;
}
