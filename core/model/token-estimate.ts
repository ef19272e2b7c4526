import type { ChatMessage, ModelToolSpec } from "./model-types.js";

/** Rough characters per token for English text and JSON (a conservative estimate). */
const CHARS_PER_TOKEN = 4;

/** Estimated tokens of a text. */
export function estimateText(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** Estimated tokens of the messages of a request (content, tool calls and per-message overhead). */
export function estimateMessages(messages: readonly ChatMessage[]): number {
  let total = 0;
  for (const m of messages) {
    total += 4 + estimateText(m.content ?? "");
    if (m.role === "assistant" && m.toolCalls) for (const c of m.toolCalls) total += 8 + estimateText(c.name + c.arguments);
  }
  return total;
}

/** Estimated tokens of tool definitions as sent to the model. */
export function estimateTools(tools: ModelToolSpec[]): number {
  let total = 0;
  for (const t of tools) total += 10 + estimateText(t.name + t.description + JSON.stringify(t.inputSchema));
  return total;
}

/** Estimated tokens of a whole request. */
export function estimateRequest(messages: readonly ChatMessage[], tools: ModelToolSpec[]): number {
  return estimateMessages(messages) + estimateTools(tools);
}
