import type { ModelReasoning } from "./model-types.js";

/**
 * The reasoning a chat-completions message or stream delta carries beside its content, with the
 * field it came in (`reasoning_content` before `reasoning`); undefined when it has none. Never throws.
 */
export function reasoningOf(m: unknown): ModelReasoning | undefined {
  const o = m as { reasoning_content?: unknown; reasoning?: unknown } | null | undefined;
  if (typeof o?.reasoning_content === "string" && o.reasoning_content !== "") return { field: "reasoning_content", text: o.reasoning_content };
  if (typeof o?.reasoning === "string" && o.reasoning !== "") return { field: "reasoning", text: o.reasoning };
  return undefined;
}

/** `sofar` with the reasoning of one more stream delta appended (the first delta's field names the whole). */
export function appendReasoning(sofar: ModelReasoning | undefined, delta: unknown): ModelReasoning | undefined {
  const more = reasoningOf(delta);
  if (!more) return sofar;
  return sofar ? { field: sofar.field, text: sofar.text + more.text } : more;
}
