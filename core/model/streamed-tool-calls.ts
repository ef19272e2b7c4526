import { isPlainObject } from "../config/plain-object.js";
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
  return isPlainObject(value) ? value : undefined;
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

/** How many times one call's arguments are parsed to see whether they are complete (bounds the work a hostile stream can cause). */
const MAX_COMPLETENESS_CHECKS = 16;

/**
 * Puts streamed tool calls together from their deltas. The OpenAI protocol keys each delta by
 * `index`, but not every OpenAI-compatible server keeps to it: some (Gemini's OpenAI endpoint and
 * gateways, several local servers) send no `index`, and Ollama labels every call of a turn
 * `index: 0`. Keyed by `index` alone, such calls merge into one with concatenated arguments
 * (`{"a":1}{"b":2}`) and the others are lost. So a delta continues the call it belongs to unless
 * it plainly begins another:
 * - it carries a name and an id other than that call's (an id alone may change from chunk to chunk: Poolside);
 * - it carries a name other than that call's after that call's arguments began (the same name
 *   again is a repeat: MiniMax on NVIDIA NIM and Fireworks send it with every delta);
 * - its arguments start a JSON object while that call's arguments are already a complete one (the
 *   same tool called twice by a server that gives neither index nor distinct ids).
 * A delta without `index` belongs to the call begun last. One instance per response.
 */
export class StreamedToolCalls {
  private readonly calls: (StreamedToolCall & { checks: number })[] = [];
  /** The call each server index is at now (the latest call begun under it). */
  private readonly byIndex = new Map<number, StreamedToolCall & { checks: number }>();

  /** Adds the `tool_calls` of one chunk's delta. */
  add(deltas: readonly ToolCallDelta[]): void {
    for (const d of deltas) {
      const index = typeof d.index === "number" ? d.index : undefined;
      let cur = index === undefined ? this.calls.at(-1) : this.byIndex.get(index);
      const name = typeof d.function?.name === "string" ? d.function.name : "";
      const id = typeof d.id === "string" ? d.id : "";
      const args = argumentsText(d.function?.arguments);
      let repeat = name !== "" && name === cur?.name;
      if (!cur || (name && id && cur.id && id !== cur.id) || (name && !repeat && cur.arguments !== "") || this.beginsAnother(cur, args)) {
        cur = { index, id: "", name: "", arguments: "", checks: 0 };
        this.calls.push(cur);
        repeat = false;
      }
      if (index !== undefined) this.byIndex.set(index, cur);
      if (id && !cur.id) cur.id = id; // the first id a call came with (some servers send a new one with every chunk)
      if (name && !repeat) cur.name += name; // a name may also come in pieces before the arguments
      cur.arguments += args;
      const extra = extraContentOf(d.extra_content);
      if (extra) cur.extraContent = { ...cur.extraContent, ...extra };
    }
  }

  /** The calls, ordered by server index where every call has one (as the protocol intends), else in the order they began. */
  result(): StreamedToolCall[] {
    const calls = this.calls.map(({ checks: _checks, ...call }) => call);
    const indexed = calls.every((c) => c.index !== undefined) && new Set(calls.map((c) => c.index)).size === calls.length;
    return indexed ? calls.sort((a, b) => a.index! - b.index!) : calls;
  }

  /** `args` opens a JSON object while `call`'s arguments already form a complete one (checked a bounded number of times per call). */
  private beginsAnother(call: StreamedToolCall & { checks: number }, args: string): boolean {
    if (!args.trimStart().startsWith("{") || !call.arguments.trimEnd().endsWith("}") || call.checks >= MAX_COMPLETENESS_CHECKS) return false;
    call.checks++;
    try {
      JSON.parse(call.arguments);
      return true;
    } catch {
      return false;
    }
  }
}
