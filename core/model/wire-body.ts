import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { ChatMessage, ModelToolSpec } from "./model-types.js";
import type { ToolNameMap } from "./tool-names.js";
import { shortCallId } from "./short-call-ids.js";
import { normalizeToolSchema } from "./tool-schema.js";
import { patternCallId, validConversation, wireCallId } from "./valid-conversation.js";

const OPEN = Buffer.from('{"messages":[');
const COMMA = Buffer.from(",");
const TOOLS = Buffer.from('],"tools":[');
/** How a request's messages are shaped for servers that refuse the plain form (see RequestFallbacks). */
export interface WireShape {
  /** A user message right after a tool result gets a short assistant message before it (Mistral). */
  bridge?: boolean;
  /** Tool-call ids in the 9-character form (`shortCallId`). */
  shortIds?: boolean;
  /** Tool-call ids outside `[a-zA-Z0-9_-]` as `call_<hash>` (`patternCallId`). */
  patternIds?: boolean;
  /** User and tool messages with empty content get a placeholder (`fillEmptyContent`). */
  fillEmpty?: boolean;
}

/** A tool-call id form some servers require (see toWire). */
export type WireIdForm = "short" | "pattern";

/** The assistant message put between a tool result and a user message for servers that refuse that order (Mistral). */
const BRIDGE = Buffer.from(',{"role":"assistant","content":"Ok."}');
/** Longest tool description sent (providers cap it). */
const MAX_DESCRIPTION = 1024;

/**
 * Builds chat-completions request bodies as UTF-8 bytes, serializing each message once. A
 * session's history only grows (messages are replaced, never changed in place: pruning and
 * compaction splice in new objects), so the JSON of every earlier message is reused and a request
 * costs one copy of the history's bytes instead of a `JSON.stringify` of it plus its encoding.
 * Tool definitions are kept the same way (normalized schema and all), by schema object. The caches
 * are keyed by identity (`WeakMap`s: dropped messages and tools are collected) and by what else
 * shapes the bytes: the provider names of an assistant message's tool calls, and a tool's provider
 * name and description (names depend on the request's tool set).
 */
export class WireBodyEncoder {
  /** `origin`: the endpoint and model this encoder's requests go to (provider data of other origins is left out). */
  constructor(private readonly origin?: string) {}

  private readonly messages = new WeakMap<ChatMessage, { names: string; bytes: Buffer }>();
  /** By schema object, then by provider name and description (aliases share their base tool's schema). */
  private readonly tools = new WeakMap<object, Map<string, Buffer>>();

  /**
   * The request body `{"messages": [...], "tools": [...], ...rest}` as bytes (no `tools` key when
   * there are none); `rest` (model, limits, stream options) is serialized as given and must hold `model`.
   * With `bridge`, a user message right after a tool result gets a short assistant
   * message before it (Mistral answers 400 "Unexpected role 'user' after role 'tool'" otherwise).
   * The messages go out as `validConversation` makes them: every tool call answered right after it,
   * whatever the history holds (an endpoint refuses anything else, on every resume); an answer with
   * neither text nor tool calls is left out.
   * With `shortIds`, tool-call ids are sent in the 9-character form Mistral requires (`shortCallId`), with `patternIds`
   * in the `[a-zA-Z0-9_-]` form Anthropic requires (`patternCallId`). With `fillEmpty`,
   * a user or tool message with empty content is sent with a placeholder (`fillEmptyContent`).
   */
  encode(
    messages: readonly ChatMessage[],
    tools: readonly ModelToolSpec[],
    names: ToolNameMap,
    rest: { model: string } & Record<string, unknown>,
    { bridge = false, shortIds = false, patternIds = false, fillEmpty = false }: WireShape = {},
  ): Buffer {
    const parts: Buffer[] = [OPEN];
    // An answer with no text and no calls says nothing, and some servers refuse it (vLLM reads "" as no content): not sent.
    const valid = validConversation(messages).messages.filter((m) => m.role !== "assistant" || m.content !== "" || m.toolCalls?.length);
    const sent = fillEmpty ? valid.map(fillEmptyContent) : valid;
    sent.forEach((m, i) => {
      if (bridge && m.role === "user" && sent[i - 1]?.role === "tool") parts.push(BRIDGE);
      if (i) parts.push(COMMA);
      parts.push(this.message(m, names, shortIds ? "short" : patternIds ? "pattern" : undefined));
    });
    if (tools.length) parts.push(TOOLS);
    tools.forEach((t, i) => {
      if (i) parts.push(COMMA);
      parts.push(this.tool(t, names));
    });
    // `rest` has `model`, so its JSON is `{"model":…}`: its fields follow.
    parts.push(Buffer.from("]," + JSON.stringify(rest).slice(1)));
    return Buffer.concat(parts);
  }

  private tool(t: ModelToolSpec, names: ToolNameMap): Buffer {
    const name = names.wire(t.name);
    const description = t.description.slice(0, MAX_DESCRIPTION);
    const key = name + "\n" + description;
    let bySchema = this.tools.get(t.inputSchema);
    if (!bySchema) this.tools.set(t.inputSchema, (bySchema = new Map()));
    let bytes = bySchema.get(key);
    if (!bytes)
      bySchema.set(
        key,
        (bytes = Buffer.from(JSON.stringify({ type: "function", function: { name, description, parameters: normalizeToolSchema(t.inputSchema) } }))),
      );
    return bytes;
  }

  private message(m: ChatMessage, names: ToolNameMap, ids: WireIdForm | undefined): Buffer {
    const callNames = m.role === "assistant" && m.toolCalls?.length ? m.toolCalls.map((c) => names.wire(c.name)).join("\n") : "";
    // What else shapes the bytes: the id form of a message with ids.
    const wireNames = ids && (callNames || m.role === "tool") ? `${callNames}\n#${ids}` : callNames;
    const hit = this.messages.get(m);
    if (hit && hit.names === wireNames) return hit.bytes;
    const bytes = Buffer.from(JSON.stringify(toWire(m, names, this.origin, ids)));
    this.messages.set(m, { names: wireNames, bytes });
    return bytes;
  }
}

/** What a user or tool message with empty (or only blank) content is sent as to a server that refuses it: it says what was there. */
export const EMPTY_CONTENT_PLACEHOLDER = "(empty)";

/**
 * `m`, or, when it is a user or tool message whose content is empty or only whitespace, a copy with
 * EMPTY_CONTENT_PLACEHOLDER as its content: Anthropic's OpenAI-compatible endpoint (and proxies in front of Claude)
 * refuse such a message with 400 on every later request, though OpenAI accepts it. Only the request changes; the
 * session keeps the message as it is. Pure.
 */
export function fillEmptyContent(m: ChatMessage): ChatMessage {
  return (m.role === "user" || m.role === "tool") && m.content.trim() === "" ? { ...m, content: EMPTY_CONTENT_PLACEHOLDER } : m;
}

/**
 * One message in the chat-completions wire format (tool names mapped to the provider's). An
 * assistant message's reasoning and its calls' `extra_content` are included only when the message
 * came from `origin` (another provider may refuse fields it does not know, or misread them). Tool-call ids in the form
 * `ids` names: `short`, the 9-character one (`shortCallId`); `pattern`, `[a-zA-Z0-9_-]` only (`patternCallId`); else
 * as OpenAI takes them (`wireCallId`).
 */
export function toWire(m: ChatMessage, names: ToolNameMap, origin?: string, ids?: WireIdForm): ChatCompletionMessageParam {
  const wireId = ids === "short" ? shortCallId : ids === "pattern" ? patternCallId : wireCallId;
  switch (m.role) {
    case "system":
      return { role: "system", content: m.content };
    case "user":
      return { role: "user", content: m.content };
    case "assistant": {
      const own = m.origin !== undefined && m.origin === origin;
      return m.toolCalls?.length
        ? {
            role: "assistant",
            content: m.content || null,
            tool_calls: m.toolCalls.map((c) => ({
              id: wireId(c.id),
              type: "function" as const,
              function: { name: names.wire(c.name), arguments: wireArguments(c.arguments) },
              ...(own && c.extraContent ? { extra_content: c.extraContent } : {}),
            })),
            // Thinking models need the reasoning behind their tool calls back, in the field it came in
            // (DeepSeek answers 400 without it); sent only to the model that returned it.
            ...(own && m.reasoning?.field && m.reasoning.text ? { [m.reasoning.field]: m.reasoning.text } : {}),
            ...(own && m.reasoning?.details ? { reasoning_details: m.reasoning.details } : {}),
          }
        : { role: "assistant", content: m.content };
    }
    case "tool":
      return { role: "tool", tool_call_id: wireId(m.toolCallId), content: m.content };
  }
}

/**
 * A call's arguments as sent back: as the model wrote them when they are a JSON object, else `{}` — a call
 * cut off before or in its arguments, or with arguments that are not a JSON object, was not run as given
 * and its result says why; vLLM and SGLang parse the arguments of every call in a request and answer 400 to
 * text that is not JSON (and some chat templates read them as an object), which would refuse the session's
 * every later request.
 */
function wireArguments(text: string): string {
  if (!text.trim()) return "{}";
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? text : "{}";
  } catch {
    return "{}";
  }
}
