/** Most parts of one content array read (bounds the work a hostile stream can cause). */
const MAX_PARTS = 1024;

/**
 * The answer text of a message's or stream delta's `content`: a string as it is; a list of content
 * parts as the text of its `{"type": "text", "text": …}` parts (and bare strings), joined — Mistral's
 * reasoning models (Magistral, Mistral Small with `reasoning_effort`) send their content that way,
 * their reasoning as `{"type": "thinking", …}` parts, which are no answer and are left out; anything
 * else "". Never throws.
 */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let text = "";
  for (const part of content.slice(0, MAX_PARTS)) {
    if (typeof part === "string") text += part;
    else if (typeof part === "object" && part !== null) {
      const p = part as { type?: unknown; text?: unknown };
      if (p.type === "text" && typeof p.text === "string") text += p.text;
    }
  }
  return text;
}
