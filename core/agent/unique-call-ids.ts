import { fileSafeCallId } from "../artifacts.js";
import type { ChatMessage, ModelToolCall } from "../model/model-types.js";

/** The tool-call ids a session has used (in artifact-name form), and the next suffix to try per renamed id. */
export interface UsedCallIds {
  ids: Set<string>;
  /** For an id renamed before: the suffix its next rename starts from (so renaming stays O(1) per call). */
  next: Map<string, number>;
}

/** The ids (in artifact-name form) of every tool call and tool result in `messages`. */
export function callIdsIn(messages: readonly ChatMessage[]): UsedCallIds {
  const ids = new Set<string>();
  for (const m of messages) {
    if (m.role === "assistant") for (const c of m.toolCalls ?? []) ids.add(fileSafeCallId(c.id));
    else if (m.role === "tool") ids.add(fileSafeCallId(m.toolCallId));
  }
  return { ids, next: new Map() };
}

/**
 * The model's tool calls with ids distinct within the session: an id that is empty, repeats an
 * earlier call of the same response, or one already in `used` (compared in artifact-name form, so
 * `a.b` and `a_b` count as the same) is replaced by `<id>-2`, `<id>-3`… (`call_<callIndex>_<i>`
 * for an empty one); the calls keep their order, names and arguments, and their ids are added to
 * `used`. Some OpenAI-compatible servers send one constant id for every call, or repeat an id
 * within a response; approvals, crash recovery, the answer each result is paired with and
 * artifact files are all keyed by the id, so keel makes them unique before recording the
 * response. The model sees the ids keel recorded (the provider only needs them to pair calls
 * with results). Returns `calls` itself when nothing had to change.
 */
export function uniqueCallIds(calls: ModelToolCall[], used: UsedCallIds, callIndex: number): ModelToolCall[] {
  let out: ModelToolCall[] | undefined;
  calls.forEach((call, i) => {
    let id = typeof call.id === "string" ? call.id : "";
    if (id === "" || used.ids.has(fileSafeCallId(id))) {
      // The id as the server wrote it (some servers expect their own format back), cut so the suffix survives in the file-safe form.
      const base = id === "" ? `call_${callIndex}_${i}` : id.slice(0, 90);
      let n = used.next.get(base) ?? 1;
      id = n === 1 ? base : `${base}-${n}`;
      while (used.ids.has(fileSafeCallId(id))) id = `${base}-${++n}`;
      used.next.set(base, n + 1);
      out ??= calls.slice(0, i);
    }
    used.ids.add(fileSafeCallId(id));
    out?.push(id === call.id ? call : { ...call, id });
  });
  return out ?? calls;
}
