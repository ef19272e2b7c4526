/** One `delta.tool_calls[]` item of a streamed chat-completions chunk, as servers send it (`index` is not always there). */
export interface ToolCallDelta {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: unknown };
  /** Provider data to send back with the call (Gemini's thought signature). */
  extra_content?: unknown;
}

/** A call's `extra_content` when it is a JSON object (kept and sent back verbatim), else undefined. */
export function extraContentOf(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/**
 * A call's `arguments` as the protocol has them, JSON text: some servers (llama-server in some
 * versions, TGI) send a JSON object instead, which is serialized here; undefined and null stay "".
 */
export function argumentsText(args: unknown): string {
  if (typeof args === "string") return args;
  return args == null ? "" : JSON.stringify(args);
}

/** A tool call put together from the deltas of a stream, in the order the calls began. */
export interface StreamedToolCall {
  /** The server's `index` of the call, or undefined when it sent none. */
  index: number | undefined;
  id: string;
  name: string;
  arguments: string;
  extraContent?: Record<string, unknown>;
}

/**
 * Puts streamed tool calls together from their deltas. The OpenAI protocol keys each delta by
 * `index`, but not every OpenAI-compatible server keeps to it: some (Gemini's OpenAI endpoint,
 * several local servers) send no `index`, and Ollama labels every call of a turn `index: 0`. Keyed
 * by `index` alone, such calls merge into one with concatenated arguments (`{"a":1}{"b":2}`) and
 * the others are lost. So a delta continues the call it belongs to unless it plainly begins
 * another: it carries an id other than that call's, or a name other than that call's after its
 * arguments began (the same name again is a repeat: some servers send it with every delta). A
 * delta without `index` belongs to the call begun last. One instance per response.
 */
export class StreamedToolCalls {
  private readonly calls: StreamedToolCall[] = [];
  /** The call each server index is at now (the latest call begun under it). */
  private readonly byIndex = new Map<number, StreamedToolCall>();

  /** Adds the `tool_calls` of one chunk's delta. */
  add(deltas: readonly ToolCallDelta[]): void {
    for (const d of deltas) {
      const index = typeof d.index === "number" ? d.index : undefined;
      let cur = index === undefined ? this.calls.at(-1) : this.byIndex.get(index);
      const name = d.function?.name;
      // Some servers (MiniMax on NVIDIA NIM, Fireworks, gateways) send the whole name with every delta: a repeat, not a new call.
      let repeat = name !== undefined && name !== "" && name === cur?.name;
      if (!cur || (d.id && cur.id && d.id !== cur.id) || (name && !repeat && cur.arguments !== "")) {
        cur = { index, id: "", name: "", arguments: "" };
        this.calls.push(cur);
        repeat = false;
      }
      if (index !== undefined) this.byIndex.set(index, cur);
      if (d.id) cur.id = d.id;
      if (name && !repeat) cur.name += name; // a name may also come in pieces before the arguments
      cur.arguments += argumentsText(d.function?.arguments);
      const extra = extraContentOf(d.extra_content);
      if (extra) cur.extraContent = { ...cur.extraContent, ...extra };
    }
  }

  /** The calls, ordered by server index where every call has one (as the protocol intends), else in the order they began. */
  result(): StreamedToolCall[] {
    const indexed = this.calls.every((c) => c.index !== undefined) && new Set(this.calls.map((c) => c.index)).size === this.calls.length;
    return indexed ? [...this.calls].sort((a, b) => a.index! - b.index!) : [...this.calls];
  }
}
