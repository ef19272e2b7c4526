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

const OPEN = "<tool_call>";

/**
 * Holds back a streamed answer that begins with `<tool_call>` (after blanks) until it ends, so that calls written as
 * text (`textToolCalls`) are not first shown as the answer; any other answer passes at once. `end()` gives back what
 * is held, to show when the answer was not calls after all. Off (`enabled` false: no tools offered), all passes.
 * Linear in what is added. One instance per answer.
 */
export class CallTextHold {
  private state: "undecided" | "holding" | "passing";
  private held = "";
  /** How many blanks `held` begins with, while undecided. */
  private blanks = 0;

  constructor(enabled: boolean) {
    this.state = enabled ? "undecided" : "passing";
  }

  /** Adds a piece of the answer; returns the part to show now (maybe ""). */
  add(piece: string): string {
    if (this.state === "passing") return piece;
    this.held += piece;
    if (this.state === "holding") return "";
    while (this.blanks < this.held.length && /\s/.test(this.held[this.blanks]!)) this.blanks++;
    const start = this.held.slice(this.blanks, this.blanks + OPEN.length);
    if (start === OPEN) this.state = "holding";
    if (start === OPEN || (start.length < OPEN.length && OPEN.startsWith(start))) return "";
    return this.end();
  }

  /** What is held back (the answer was not calls, or ended while undecided), to show; "" when nothing is. */
  end(): string {
    const out = this.held;
    this.held = "";
    this.state = "passing";
    return out;
  }
}
