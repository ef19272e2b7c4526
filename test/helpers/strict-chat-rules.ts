/**
 * The message-list rules OpenAI's chat-completions endpoint enforces (it answers HTTP 400 with an
 * `invalid_request_error` when one is broken), checked the way it checks them, with its messages:
 * - the list is not empty; every role is `system`, `developer`, `user`, `assistant` or `tool`;
 * - `content` is a string or an array of parts; an assistant message may leave it out (or null) only
 *   when it has `tool_calls`; a tool message's content is a string or text parts;
 * - every `tool_calls` entry has a non-empty `id` of at most 40 characters (unique in the request), type
 *   `function`, a `function.name` of `^[a-zA-Z0-9_-]{1,64}$` and `function.arguments` as a string;
 * - an assistant message with `tool_calls` is followed directly by one `tool` message per call id (no
 *   other message in between, none missing), and a `tool` message answers a call of the assistant
 *   message before its run of tool messages, once.
 * Sources: OpenAI's API reference (ChatCompletionMessageParam in openai-node) and the error texts the
 * API returns for each rule (quoted in many public bug reports).
 */

/** One broken rule: OpenAI's message for it and the `param` it names. */
export interface ChatRuleError {
  message: string;
  param: string | null;
  code: string | null;
}

const ROLES = new Set(["system", "developer", "user", "assistant", "tool"]);
const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
/** Longest tool-call id OpenAI accepts. */
export const MAX_CALL_ID = 40;

/** The first rule `messages` breaks, or undefined when OpenAI would accept the list. */
export function chatRuleError(messages: unknown): ChatRuleError | undefined {
  if (!Array.isArray(messages)) return { message: "Missing required parameter: 'messages'.", param: "messages", code: "missing_required_parameter" };
  if (messages.length === 0) return { message: "[] is too short - 'messages'", param: null, code: null };
  const ids = new Set<string>();
  // The calls of the last assistant message that still wait for their tool message.
  let open: Set<string> | undefined;
  let openAt = -1;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as Record<string, unknown> | null;
    if (typeof m !== "object" || m === null || typeof m.role !== "string" || !ROLES.has(m.role))
      return {
        message: `Invalid value: '${String((m as { role?: unknown } | null)?.role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
        param: `messages[${i}].role`,
        code: "invalid_value",
      };
    if (m.role !== "tool" && open && open.size > 0) return unanswered(open, openAt);
    if (m.role !== "tool") open = undefined;
    const content = m.content;
    const hasCalls = Array.isArray(m.tool_calls) && m.tool_calls.length > 0;
    if (m.role === "assistant" && (content === undefined || content === null) && !hasCalls)
      return { message: `Invalid value for 'content': expected a string, got null.`, param: `messages.[${i}].content`, code: null };
    if (m.role !== "assistant" && typeof content !== "string" && !Array.isArray(content))
      return {
        message: `Invalid type for 'messages[${i}].content': expected one of a string or array of objects, but got ${typeName(content)} instead.`,
        param: `messages[${i}].content`,
        code: "invalid_type",
      };
    if (m.role === "assistant" && content !== undefined && content !== null && typeof content !== "string" && !Array.isArray(content))
      return {
        message: `Invalid type for 'messages[${i}].content': expected one of a string or array of objects, but got ${typeName(content)} instead.`,
        param: `messages[${i}].content`,
        code: "invalid_type",
      };
    if (m.role === "assistant" && m.tool_calls !== undefined) {
      if (!Array.isArray(m.tool_calls))
        return {
          message: `Invalid type for 'messages[${i}].tool_calls': expected an array of objects.`,
          param: `messages[${i}].tool_calls`,
          code: "invalid_type",
        };
      if (m.tool_calls.length === 0)
        return {
          message: `Invalid 'messages[${i}].tool_calls': empty array. Expected an array with minimum length 1, but got an empty array instead.`,
          param: `messages[${i}].tool_calls`,
          code: "empty_array",
        };
      open = new Set();
      openAt = i;
      for (let j = 0; j < m.tool_calls.length; j++) {
        const c = m.tool_calls[j] as { id?: unknown; type?: unknown; function?: { name?: unknown; arguments?: unknown } };
        const at = `messages[${i}].tool_calls[${j}]`;
        if (typeof c.id !== "string" || c.id === "")
          return { message: `Invalid '${at}.id': empty string. Expected a string with minimum length 1.`, param: `${at}.id`, code: "empty_string" };
        if (c.id.length > MAX_CALL_ID)
          return {
            message: `Invalid '${at}.id': string too long. Expected a string with maximum length ${MAX_CALL_ID}, but got a string with length ${c.id.length} instead.`,
            param: `${at}.id`,
            code: "string_above_max_length",
          };
        if (ids.has(c.id))
          return { message: `Invalid '${at}.id': duplicate tool call id '${c.id}' in the request.`, param: `${at}.id`, code: "duplicate_value" };
        ids.add(c.id);
        open.add(c.id);
        if (c.type !== "function") return { message: `Invalid value for '${at}.type': expected 'function'.`, param: `${at}.type`, code: "invalid_value" };
        if (typeof c.function?.name !== "string" || !FUNCTION_NAME.test(c.function.name))
          return {
            message: `Invalid '${at}.function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
            param: `${at}.function.name`,
            code: "invalid_value",
          };
        if (typeof c.function.arguments !== "string")
          return {
            message: `Invalid type for '${at}.function.arguments': expected a string, but got ${typeName(c.function.arguments)} instead.`,
            param: `${at}.function.arguments`,
            code: "invalid_type",
          };
      }
    }
    if (m.role === "tool") {
      const id = m.tool_call_id;
      if (typeof id !== "string" || !open?.has(id))
        return {
          message: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          param: `messages.[${i}].role`,
          code: null,
        };
      open.delete(id);
      if (Array.isArray(content) && content.some((p) => (p as { type?: unknown }).type !== "text"))
        return {
          message: `Invalid 'messages[${i}].content': a tool message's content parts must be text.`,
          param: `messages[${i}].content`,
          code: "invalid_value",
        };
    }
  }
  if (open && open.size > 0) return unanswered(open, openAt);
  return undefined;
}

/**
 * Anthropic's message for the first tool-call id in `messages` outside `^[a-zA-Z0-9_-]+$`, as its OpenAI-compatible
 * endpoint (and proxies in front of Claude) answer 400 — "messages.1.content.1.tool_use.id: String should match pattern
 * '^[a-zA-Z0-9_-]+$'", quoted in public bug reports — or undefined when every id has that form. A call's index is counted
 * as Anthropic's content blocks are (its text first); a result's is its place in the user turn it becomes.
 */
export function callIdPatternError(
  messages: readonly { role: string; content?: unknown; tool_calls?: { id: string }[]; tool_call_id?: string }[],
): string | undefined {
  const ok = (id: string) => /^[a-zA-Z0-9_-]+$/.test(id);
  const pattern = "String should match pattern '^[a-zA-Z0-9_-]+$'";
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const first = typeof m.content === "string" && m.content !== "" ? 1 : 0;
    const bad = (m.tool_calls ?? []).findIndex((c) => !ok(c.id));
    if (bad !== -1) return `messages.${i}.content.${first + bad}.tool_use.id: ${pattern}`;
    if (m.role === "tool" && m.tool_call_id !== undefined && !ok(m.tool_call_id)) return `messages.${i}.content.0.tool_result.tool_use_id: ${pattern}`;
  }
  return undefined;
}

/** An assistant message whose calls were not all answered right after it. */
function unanswered(open: Set<string>, at: number): ChatRuleError {
  return {
    message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(", ")}`,
    param: `messages.[${at}].role`,
    code: null,
  };
}

function typeName(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
}
