import { validConversation } from "../model/valid-conversation.js";
import type { ActiveSession } from "./active-session.js";

/**
 * Makes the session's conversation one a chat-completions endpoint accepts before it is sent (see
 * `validConversation`): a stored session broken by an older keel or an edited log would otherwise be
 * refused (HTTP 400) on every resume. The change is appended to the log as a `session_edit` (from the
 * first message that changes; no file is rewritten) with a `conversation_repaired` event; nothing
 * happens when the conversation is already valid. Returns whether it repaired something.
 */
export function repairConversation(s: ActiveSession): boolean {
  const current = s.state.messages;
  const { messages, repairs } = validConversation(current);
  if (!repairs) return false;
  let first = 0;
  while (first < messages.length && first < current.length && messages[first] === current[first]) first++;
  s.editMessages(first, current.length - first, messages.slice(first));
  s.emit("conversation_repaired", repairs);
  return true;
}
