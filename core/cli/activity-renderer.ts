import type { SubAgentOrigin } from "../agent/active-session.js";
import type { KeelEvent } from "../types.js";
import { type Palette, palette } from "./palette.js";
import { exactText, terminalText } from "./terminal-text.js";

/** Where and how tool activity is drawn. */
export interface ActivityOptions {
  /** Colours on (see `useColor`). */
  color: boolean;
  /** Columns available for one line (default 100); a function is asked at each line (a terminal's width changes when its window is resized). */
  width?: number | (() => number | undefined);
  /** Called before the renderer writes a line: whoever shares the screen ends its partial line (streamed answer text). */
  beforeLine?: () => void;
}

/** Per-call state between the events of one tool call. */
interface CallState {
  tool: string;
  args?: string;
  started: boolean;
  durationMs?: number;
  ok?: boolean;
  code?: string;
  blockedBy?: string;
}

/**
 * Draws a session's tool activity from its events, one line per step: `● tool  argument summary`
 * when a call starts, then `✓`/`✗` with a one-line result (or error) and the duration when its
 * result is recorded; blocks, approvals, hook guidance and context changes get their own marked
 * lines. Long results are folded to one line (the full text's artifact is named by path). Text
 * from tools and models is made terminal-safe; colours only when `color` is on. Used by
 * `keel chat` (stdout) and `keel run` (stderr). A sub-agent's calls are drawn under its `delegate_agent`
 * call, indented by depth and named by the sub-agent's type. Never throws.
 */
export class ActivityRenderer {
  private readonly calls = new Map<string, CallState>();
  private readonly c: Palette;
  /** The sub-agent whose event is being drawn (its lines are indented under the `delegate_agent` call), if any. */
  private from?: SubAgentOrigin;

  constructor(
    private readonly out: NodeJS.WritableStream,
    private readonly options: ActivityOptions,
  ) {
    this.c = palette(options.color);
  }

  /** Columns for one line now (at least 40). */
  private get width(): number {
    const w = typeof this.options.width === "function" ? this.options.width() : this.options.width;
    return Math.max(40, w ?? 100);
  }

  /** Handles one event of the session's log (unknown and uninteresting ones are skipped); `from`: a sub-agent's event, drawn under its call. */
  event(e: KeelEvent, from?: SubAgentOrigin): void {
    this.from = from;
    try {
      this.draw(e);
    } finally {
      this.from = undefined;
    }
  }

  private draw(e: KeelEvent): void {
    const c = this.c;
    switch (e.type) {
      case "session_message": {
        const m = e.message;
        if (m.role === "assistant") for (const call of m.toolCalls ?? []) this.state(call.id, call.name).args = call.arguments;
        else if (m.role === "tool") this.result(m.toolCallId, m.name, m.content, m.artifact);
        return;
      }
      case "approval_decision": {
        // `keel sessions approve`: the call was asked for in an earlier process; its arguments come with the decision
        const s = this.state(e.callId, e.tool);
        if (s.args === undefined && e.input !== undefined) s.args = typeof e.input === "string" ? e.input : JSON.stringify(e.input);
        return;
      }
      case "tool_intent":
        return this.start(e.callId, e.tool);
      case "tool_hook":
        this.state(e.callId, e.tool).blockedBy = e.by ?? "a plugin";
        return this.line(`  ${c.red("⛔")} ${c.red(`blocked by ${e.by ?? "a plugin"}`)}`);
      case "tool_permission":
        if (e.action === "deny") return this.line(`  ${c.red("⛔")} ${c.red(`denied${e.rule ? ` by rule ${e.rule}` : e.reason ? ` (${e.reason})` : ""}`)}`);
        return;
      case "tool_execute":
        if (e.action === "ask") this.line(`  ${c.green("✔")} ${c.dim(`approved (${e.approvedBy})`)}`);
        return;
      case "tool_observation": {
        const s = this.state(e.callId, e.tool);
        s.durationMs = e.durationMs;
        s.ok = e.ok;
        s.code = e.code;
        return;
      }
      case "approval_paused":
        return this.line(`  ${c.yellow("⏸")} ${c.yellow(`${exactText(e.tool)} waits for approval`)} ${c.dim(this.fold(e.message))}`);
      case "tool_guidance": {
        // `Plugin tool runtime guidance for `tool`:` then `- Before tool: …` lines: shown as one line
        const [heading = "", ...items] = e.text.split("\n");
        const tool = /guidance for `([^`]+)`/.exec(heading)?.[1];
        return tool ? this.guidance(`guidance for ${tool}`, items.map((l) => l.replace(/^- /, "")).join("; ")) : this.guidance("guidance", e.text);
      }
      case "hook":
        return this.guidance(`hook ${e.hook}`, e.texts.map((t) => (typeof t === "string" ? t : `${t.source}: ${t.text}`)).join("; "));
      case "after_turn":
        if (e.notes.length) this.guidance("hook afterTurn", e.notes.map((n) => `${n.source}: ${n.text}`).join("; "));
        return;
      case "hook_error":
        return this.line(`  ${c.red("!")} ${c.red(`hook ${e.hook}${e.tap ? ` (${e.tap})` : ""} failed:`)} ${this.fold(e.message)}`);
      case "compaction":
        return this.line(`${c.cyan("◆")} ${c.dim(`compacted ${e.removedMessages} messages (${e.method})`)}`);
      case "queue_drained":
        // `keel send` messages joined the conversation; those a tool's command queued are not the user's words (the model is told so too).
        if (e.fromTool)
          return this.notice(
            `${e.count} queued message(s) added to the conversation, ${e.fromTool} of them queued by a command keel ran for a tool, not by you`,
            "warn",
          );
        return this.line(`${c.cyan("◆")} ${c.dim(`${e.count} queued message(s) added to the conversation (keel send)`)}`);
      case "context_pruned":
        return this.line(`${c.cyan("◆")} ${c.dim(`pruned ${e.pruned} old tool outputs (~${e.before} → ${e.after} tokens)`)}`);
      case "recovery":
        return this.line(`${c.yellow("◆")} ${c.dim(`recovered an interrupted turn (${e.unknownCalls.length} calls with unknown outcome not re-run)`)}`);
      case "conversation_repaired":
        return this.line(`${c.yellow("◆")} ${c.dim(`repaired the conversation before sending it (${repairSummary(e)})`)}`);
      case "model_response":
        if (e.shownReasoningChars)
          this.notice(
            "the model's text above, up to its </think> line, was its reasoning (its chat template had opened <think>): not kept as the answer; its later answers hold it back",
          );
        if (e.finishReason === "length") this.notice("the model's response reached its output limit (model.maxOutputTokens) and was cut off", "warn");
        else if (e.finishReason === "content_filter") this.notice("the provider's content filter stopped the model's response", "warn");
        return;
      case "model_retry":
        if (e.loadingWaitedMs !== undefined)
          return this.line(
            `${c.yellow("↻")} ${c.yellow(`waiting for the server to load the model (${duration(e.loadingWaitedMs)} so far; asking again in ${duration(e.delayMs)}; Ctrl-C stops)`)}`,
          );
        return this.line(
          `${c.yellow("↻")} ${c.yellow(`model call failed, retrying in ${duration(e.delayMs)} (${e.attempt} of ${e.maxRetries}):`)} ${this.fold(withoutEndpoint(e.message), 40)}`,
        );
      case "model_error":
        return this.line(`${c.red("✗")} ${c.red("model error:")} ${this.fold(e.message)}`);
      default:
        return;
    }
  }

  /** Draws a keel notice (a cancelled turn, a status) as a marked line. */
  notice(text: string, kind: "info" | "warn" | "error" = "info"): void {
    const c = this.c;
    const mark = kind === "error" ? c.red("✗") : kind === "warn" ? c.yellow("◆") : c.cyan("◆");
    this.line(`${mark} ${kind === "info" ? c.dim(terminalText(text)) : terminalText(text)}`);
  }

  private state(callId: string, tool: string): CallState {
    let s = this.calls.get(callId);
    if (!s) this.calls.set(callId, (s = { tool, started: false }));
    return s;
  }

  private start(callId: string, tool: string): void {
    const s = this.state(callId, tool);
    if (s.started) return;
    s.started = true;
    const args = s.args === undefined ? "" : argumentSummary(s.args);
    const who = this.from ? `${this.c.magenta(terminalText(this.from.agent))} ${this.c.dim("›")} ` : "";
    // a name is one line: the model's unknown tool "x\n  ✓ …" would draw a line keel never wrote
    const head = `${this.c.cyan("●")} ${who}${this.c.bold(exactText(tool))}`;
    const room = this.width - tool.length - 4 - (this.from ? this.from.agent.length + 3 + 2 * this.from.depth : 0);
    this.line(args ? `${head}  ${this.c.dim(terminalText(cut(args, room)))}` : head);
  }

  private result(callId: string, tool: string, content: string, artifact?: string): void {
    const s = this.state(callId, tool);
    if (!s.started) this.start(callId, tool);
    this.calls.delete(callId);
    const c = this.c;
    const took = s.durationMs === undefined ? "" : c.dim(` · ${duration(s.durationMs)}`);
    const ok = s.ok ?? !content.startsWith("Error (");
    const body = ok ? content : content.replace(/^Error \([a-z_]+\): /, "");
    const code = ok ? "" : c.red(`${s.code ?? /^Error \(([a-z_]+)\)/.exec(content)?.[1] ?? "error"}: `);
    const where = artifact ? c.dim(` · full output: ${terminalText(artifact)}`) : "";
    const mark = ok ? c.green("✓") : s.code === "cancelled" ? c.yellow("⏹") : c.red("✗");
    this.line(`  ${mark} ${code}${this.fold(body, 20 + (artifact?.length ?? 0))}${took}${where}`);
  }

  private guidance(label: string, text: string): void {
    if (text.trim() === "") return;
    this.line(`  ${this.c.magenta("ℹ")} ${this.c.magenta(label + ":")} ${this.fold(text)}`);
  }

  /** One line of `text`: its first non-empty line, cut to the width, with a count of the lines left out. */
  private fold(text: string, reserve = 0): string {
    const lines = text.split("\n").filter((l) => l.trim() !== "");
    const first = (lines[0] ?? "").trim();
    const more = lines.length > 1 ? ` (+${lines.length - 1} lines)` : "";
    return terminalText(cut(first, this.width - 8 - reserve - more.length)) + this.c.dim(more);
  }

  private line(text: string): void {
    this.options.beforeLine?.();
    this.out.write((this.from ? "  ".repeat(this.from.depth) : "") + text + "\n");
  }
}

/** A one-line summary of a call's JSON arguments: `key=value` pairs (long values cut), or the raw text. */
export function argumentSummary(json: string): string {
  let input: unknown;
  try {
    input = json.trim() ? JSON.parse(json) : {};
  } catch {
    return json.replace(/\s+/g, " ");
  }
  if (input === null || typeof input !== "object" || Array.isArray(input)) return JSON.stringify(input);
  const entries = Object.entries(input as Record<string, unknown>);
  // one argument (a command, a path): its value alone reads best
  if (entries.length === 1 && typeof entries[0]![1] === "string") return oneLine(entries[0]![1] as string);
  return entries.map(([k, v]) => `${k}=${oneLine(typeof v === "string" ? v : JSON.stringify(v))}`).join(" ");
}

/** `ms` as `420ms`, `3.1s` or `2m05s`. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
}

/**
 * A model error's message without the endpoint it names (`at https://…`, `from …`, `(OpenAI)`): on the retry
 * line, whose room is short, the status and the provider's words then show (`The provider failed (503: …`);
 * the event, and the error the turn may end with, keep the whole message.
 */
function withoutEndpoint(message: string): string {
  return message.replace(/ (?:at |from )?(?:https?:\/\/\S+|\(OpenAI\))(?= )/g, "");
}

function oneLine(text: string): string {
  const flat = text.replace(/\s*\n\s*/g, " ⏎ ");
  return flat.length > 80 ? flat.slice(0, 79) + "…" : flat;
}

function cut(text: string, room: number): string {
  const n = Math.max(10, room);
  return text.length > n ? text.slice(0, n - 1) + "…" : text;
}

/** What a conversation repair did, in a few words (`2 calls without a result answered, 1 message moved after the results`). */
function repairSummary(e: { unanswered: number; moved: number; strayResults: number; renamed: number }): string {
  const parts = [
    e.unanswered ? `${e.unanswered} call(s) without a result answered` : "",
    e.moved ? `${e.moved} message(s) moved after their calls' results` : "",
    e.strayResults ? `${e.strayResults} result(s) without their call kept as notes` : "",
    e.renamed ? `${e.renamed} repeated call id(s) renamed` : "",
  ];
  return parts.filter(Boolean).join(", ");
}
