import type { ChatMessage, ModelToolSpec } from "./model-types.js";

/** Rough characters per token for English text and JSON (a conservative estimate). */
const CHARS_PER_TOKEN = 4;

/** Estimated tokens of a text. */
export function estimateText(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** Estimated tokens of one message (content, tool calls, the reasoning sent back with them, and per-message overhead). */
export function estimateMessage(m: ChatMessage): number {
  let total = 4 + estimateText(m.content ?? "");
  if (m.role === "assistant" && m.toolCalls) {
    for (const c of m.toolCalls) total += 8 + estimateText(c.name + c.arguments);
    if (m.reasoning) total += estimateText(m.reasoning.text ?? "") + (m.reasoning.details ? estimateText(JSON.stringify(m.reasoning.details)) : 0);
  }
  return total;
}

/** Estimated tokens of one tool definition as sent to the model; `schemaChars` is the length of its schema's JSON. */
function estimateTool(t: ModelToolSpec, schemaChars: number): number {
  return 10 + Math.ceil((t.name.length + t.description.length + schemaChars) / CHARS_PER_TOKEN);
}

/**
 * Token estimates that remember what they measured: a message's estimate by the message object, a
 * tool schema's length by the schema object (neither is changed in place: a session replaces
 * messages, a registry replaces definitions). A step of a long session then costs a lookup per
 * message instead of a pass over its text, and no schema is serialized twice.
 */
export class TokenEstimator {
  private readonly byMessage = new WeakMap<ChatMessage, number>();
  private readonly schemaChars = new WeakMap<object, number>();

  /** Estimated tokens of the messages of a request. */
  messages(messages: readonly ChatMessage[]): number {
    let total = 0;
    for (const m of messages) {
      let n = this.byMessage.get(m);
      if (n === undefined) this.byMessage.set(m, (n = estimateMessage(m)));
      total += n;
    }
    return total;
  }

  /** Estimated tokens of tool definitions as sent to the model. */
  tools(tools: readonly ModelToolSpec[]): number {
    let total = 0;
    for (const t of tools) {
      let chars = this.schemaChars.get(t.inputSchema);
      if (chars === undefined) this.schemaChars.set(t.inputSchema, (chars = JSON.stringify(t.inputSchema).length));
      total += estimateTool(t, chars);
    }
    return total;
  }

  /** Estimated tokens of a whole request. */
  request(messages: readonly ChatMessage[], tools: readonly ModelToolSpec[]): number {
    return this.messages(messages) + this.tools(tools);
  }
}
