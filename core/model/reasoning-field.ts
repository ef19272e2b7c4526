import type { ModelReasoning } from "./model-types.js";

type Detail = Record<string, unknown>;

/** Fields of a streamed reasoning detail that arrive in pieces (the rest arrive whole). */
const PIECED = ["text", "summary", "data"] as const;

/**
 * The reasoning a chat-completions message or stream delta carries beside its content: its plain
 * text with the field it came in (`reasoning_content` before `reasoning`), and OpenRouter's
 * structured `reasoning_details`; undefined when it has neither. Never throws.
 */
export function reasoningOf(m: unknown): ModelReasoning | undefined {
  const o = m as { reasoning_content?: unknown; reasoning?: unknown; reasoning_details?: unknown } | null | undefined;
  const plain =
    typeof o?.reasoning_content === "string" && o.reasoning_content !== ""
      ? { field: "reasoning_content" as const, text: o.reasoning_content }
      : typeof o?.reasoning === "string" && o.reasoning !== ""
        ? { field: "reasoning" as const, text: o.reasoning }
        : undefined;
  const details = Array.isArray(o?.reasoning_details) ? (o.reasoning_details.filter(isDetail) as Detail[]) : [];
  if (!plain && details.length === 0) return undefined;
  return { ...plain, ...(details.length ? { details } : {}) };
}

/**
 * `sofar` with one more stream delta's reasoning added: plain text appended (the first delta's
 * field names the whole); details merged by their `index` (their `text`, `summary` and `data`
 * pieces appended, other fields such as `signature` set), a detail without `index` continuing the last one.
 */
export function appendReasoning(sofar: ModelReasoning | undefined, delta: unknown): ModelReasoning | undefined {
  const more = reasoningOf(delta);
  if (!more) return sofar;
  if (!sofar) return { ...more, ...(more.details ? { details: more.details.map((d) => ({ ...d })) } : {}) };
  const out: ModelReasoning = { ...sofar };
  if (more.text) {
    out.field ??= more.field;
    out.text = (out.text ?? "") + more.text;
  }
  if (more.details) out.details = mergeDetails(out.details ? [...out.details] : [], more.details);
  return out;
}

function mergeDetails(into: Detail[], pieces: Detail[]): Detail[] {
  for (const piece of pieces) {
    const at = typeof piece.index === "number" ? into.findIndex((d) => d.index === piece.index) : into.length - 1;
    if (at === -1 || (typeof piece.index !== "number" && into.length === 0)) {
      into.push({ ...piece });
      continue;
    }
    const merged: Detail = { ...into[at]! };
    for (const [key, value] of Object.entries(piece)) {
      if (key === "__proto__") continue;
      merged[key] = (PIECED as readonly string[]).includes(key) && typeof value === "string" && typeof merged[key] === "string" ? merged[key] + value : value;
    }
    into[at] = merged;
  }
  return into;
}

function isDetail(value: unknown): boolean {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
