import { isPlainObject } from "../config/plain-object.js";
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
  const details = Array.isArray(o?.reasoning_details) ? o.reasoning_details.filter(isPlainObject) : [];
  if (!plain && details.length === 0) return undefined;
  return { ...plain, ...(details.length ? { details } : {}) };
}

/**
 * The reasoning of a stream, put together delta by delta: plain text appended (the first delta's
 * field names the whole); `reasoning_details` merged by their `index` (their `text`, `summary` and
 * `data` pieces appended, other fields such as `signature` set), a detail without `index`
 * continuing the last one when it is of the same type. Linear in what the stream sends. One
 * instance per response.
 */
export class StreamedReasoning {
  private field: ModelReasoning["field"];
  private text = "";
  private readonly details: Detail[] = [];
  private readonly byIndex = new Map<number, Detail>();

  /** Adds the reasoning of one stream delta (none is fine). */
  add(delta: unknown): void {
    const more = reasoningOf(delta);
    if (!more) return;
    if (more.text) {
      this.field ??= more.field;
      this.text += more.text;
    }
    for (const piece of more.details ?? []) this.addDetail(piece);
  }

  /** The reasoning so far, or undefined when the stream carried none. */
  result(): ModelReasoning | undefined {
    if (!this.text && this.details.length === 0) return undefined;
    return { ...(this.text ? { field: this.field, text: this.text } : {}), ...(this.details.length ? { details: this.details } : {}) };
  }

  private addDetail(piece: Detail): void {
    const index = typeof piece.index === "number" ? piece.index : undefined;
    const last = this.details.at(-1);
    let target = index !== undefined ? this.byIndex.get(index) : last && (piece.type === undefined || piece.type === last.type) ? last : undefined;
    if (!target) {
      target = {};
      this.details.push(target);
      if (index !== undefined) this.byIndex.set(index, target);
    }
    for (const [key, value] of Object.entries(piece)) {
      if (key === "__proto__") continue;
      const sofar = target[key];
      target[key] = (PIECED as readonly string[]).includes(key) && typeof value === "string" && typeof sofar === "string" ? sofar + value : value;
    }
  }
}
