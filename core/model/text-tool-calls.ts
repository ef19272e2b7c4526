import type { ModelToolCall } from "./model-types.js";
import type { ToolNameMap } from "./tool-names.js";

/** Most blocks one answer may be taken as (more is no tool-call answer). */
const MAX_BLOCKS = 16;

/**
 * Tool calls a local model wrote as text in the Hermes format (Qwen2.5, Hermes, many fine-tunes, served without a
 * tool-call parser: `<tool_call>\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n</tool_call>`), or undefined
 * when `text` is not exactly that. Taken only when the whole answer is one or more such blocks and nothing else (blanks
 * aside), each a JSON object with a `name` that is one of the tools offered (`names`, as sent) and `arguments` that are
 * a JSON object (or JSON text of one); one block that is not so leaves the whole answer text. Ids are
 * `call_<callIndex>_<i>`. Linear in `text`.
 */
export function textToolCalls(text: string, offered: ReadonlySet<string>, names: ToolNameMap, callIndex: number): ModelToolCall[] | undefined {
  if (!text.includes("<tool_call>")) return undefined;
  const calls: ModelToolCall[] = [];
  // One block, blanks around it allowed (JSON.parse takes those inside); sticky, so made per call.
  const BLOCK = /\s*<tool_call>([\s\S]*?)<\/tool_call>\s*/y;
  while (BLOCK.lastIndex < text.length) {
    const at = BLOCK.lastIndex;
    const match = BLOCK.exec(text);
    if (!match || calls.length === MAX_BLOCKS) return text.slice(at).trim() === "" && calls.length > 0 ? calls : undefined;
    const call = parsedCall(match[1]!);
    if (!call || !offered.has(call.name)) return undefined;
    calls.push({ id: `call_${callIndex}_${calls.length}`, name: names.local(call.name), arguments: call.arguments });
  }
  return calls.length > 0 ? calls : undefined;
}

/** `{"name": …, "arguments": {…}}` as a name and JSON text of the arguments, or undefined. */
function parsedCall(json: string): { name: string; arguments: string } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const { name, arguments: args } = value as { name?: unknown; arguments?: unknown };
  if (typeof name !== "string") return undefined;
  let parsed = args ?? {};
  if (typeof parsed === "string") {
    try {
      parsed = JSON.parse(parsed);
    } catch {
      return undefined;
    }
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
  return { name, arguments: JSON.stringify(parsed) };
}
