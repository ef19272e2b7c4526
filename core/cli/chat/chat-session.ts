import { existsSync } from "node:fs";
import type { AgentOutcome, AgentRunOptions, AgentRuntime } from "../../agent/agent-runtime.js";
import { errorMessage } from "../../errors.js";
import { linkedSignal } from "../../linked-signal.js";
import type { Host } from "../../host.js";
import { sessionPaths } from "../../session/session-paths.js";
import type { SessionUsage } from "../../session/session-types.js";
import type { ElicitationRequest, Elicitor } from "../../elicitation.js";
import type { ApprovalAnswer, Approver } from "../../types.js";
import { ActivityRenderer } from "../activity-renderer.js";
import type { CliContext } from "../cli-context.js";
import { type Palette, palette, useColor } from "../palette.js";
import { terminalText } from "../terminal-text.js";
import { ttyApprover } from "../tty-approver.js";
import { ThinkingIndicator } from "../thinking-indicator.js";
import { ttyElicitor } from "../tty-elicitor.js";
import { ChatInput, type InterruptWatch } from "./chat-input.js";
import { HeldOutput } from "./held-output.js";
import { waitingApproval } from "../waiting-approval.js";

/** Tokens and calls of one turn (for `/cost`). */
export interface TurnCost {
  sessionId: string;
  turn: number;
  inputTokens: number;
  outputTokens: number;
  modelCalls: number;
  toolCalls: number;
}

/**
 * One interactive session on the terminal: reads prompts, runs each as a turn of the current agent
 * session (the first starts it, later ones resume it), streams the answer and draws tool activity
 * as it happens. Ctrl-C cancels the running turn (the tool gets its abort; the session is persisted
 * and goes on with the next prompt). Holds one host open for the whole chat.
 */
export class Chat {
  /** The session the next prompt continues (set through `use`); undefined: the next prompt starts one. */
  sessionId?: string;
  /** Costs of this chat's turns, oldest first. */
  readonly turns: TurnCost[] = [];
  readonly input: ChatInput;
  readonly renderer: ActivityRenderer;
  readonly c: Palette;
  private midLine = false;
  /** "thinking…" while the model is asked, erased before anything else is written. */
  private readonly thinking: ThinkingIndicator;
  /** Tools approved "always" in this chat for the current session (a resumed session's file is no evidence of approval). */
  private readonly allowed = new Set<string>();
  private watch?: InterruptWatch;
  /** The chat's output, held while a question is open (see HeldOutput). */
  private readonly screen: HeldOutput;
  private turnAbort?: AbortController;
  /** Asks on the terminal, inline, without breaking the stream (y / n / a). */
  readonly approver: Approver;
  /** Asks an MCP server's elicitation on the terminal, inline, the same way. */
  readonly elicitor: Elicitor;

  constructor(
    readonly ctx: CliContext,
    readonly host: Host,
    readonly runtime: AgentRuntime,
    readonly model: string | undefined,
  ) {
    const out = ctx.io.stdout;
    const color = useColor(out, ctx.io.env);
    this.c = palette(color);
    this.input = new ChatInput(ctx.io.stdin, out, ctx.io.env);
    this.screen = new HeldOutput(out);
    this.thinking = new ThinkingIndicator(this.screen.stream, color);
    this.renderer = new ActivityRenderer(this.screen.stream, { color, width: () => (out as { columns?: number }).columns, beforeLine: () => this.endLine() });
    const tty = ttyApprover(ctx.io.stdin, out, () => this.interrupt());
    const elicit = ttyElicitor(ctx.io.stdin, out, () => this.interrupt());
    this.approver = { approve: (req, signal) => this.asking(() => tty.approve(req, signal)) };
    this.elicitor = Object.assign((req: ElicitationRequest, signal: AbortSignal) => this.asking(() => elicit(req, signal)), { waitsForUser: true });
  }

  /** Runs a prompt that reads lines itself (an approval, an elicitation) on its own line, and takes the terminal back after (it leaves it in cooked mode). */
  private async asking<T>(ask: () => Promise<T>): Promise<T> {
    this.endLine();
    this.screen.hold();
    try {
      return await ask();
    } finally {
      this.screen.release();
      this.watch?.rearm();
    }
  }

  /** Writes text for the user (terminal-safe), on its own line. */
  say(text: string): void {
    this.styled(terminalText(text));
  }

  /** Writes keel's own styled text (already terminal-safe), on its own line. */
  styled(text: string): void {
    this.endLine();
    this.screen.write(text.endsWith("\n") ? text : text + "\n");
  }

  /** Ctrl-C during a turn: cancels it. */
  interrupt(): void {
    this.turnAbort?.abort();
  }

  /**
   * Runs `work` as a turn runs: the terminal is watched meanwhile and Ctrl-C (at an approval prompt
   * too) aborts the signal it gets — that work, not the chat. For turns, a prompt command's
   * expansion (its shell lines), `/compact`, the commands slash commands run.
   */
  async cancellable<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    this.turnAbort = controller;
    const watch = (this.watch = this.input.watch(() => controller.abort()));
    // Not `AbortSignal.any`: on Node 20 each would leave an entry on the chat's signal for the chat's life (one per turn).
    const linked = linkedSignal([controller.signal, this.ctx.signal]);
    try {
      return await work(linked.signal);
    } finally {
      linked.unlink();
      // a question open past the work (a server's elicitation) still reads the terminal
      watch.stop(this.screen.holding);
      this.watch = undefined;
      this.turnAbort = undefined;
    }
  }

  /**
   * Runs `prompt` as the next turn; never throws (a failure is shown and the chat goes on). When the
   * session waits for an approval (see `settleWaiting`), that is asked first, and the prompt is sent
   * only once the session no longer waits. `onPromptAdded`: see AgentRunOptions (a `/name` the user started).
   */
  async turn(prompt: string, model = this.model, onPromptAdded?: (sessionId: string) => void): Promise<void> {
    if (!(await this.settleWaiting())) return this.renderer.notice("Your prompt was not sent (↑ brings it back).", "warn");
    const id = this.sessionId;
    await this.running((options) =>
      id && this.exists(id)
        ? this.runtime.resume(id, { ...options, prompt, model, onPromptAdded })
        : this.runtime.start({ ...options, prompt, model, onPromptAdded }),
    );
  }

  /**
   * When the current session waits for an approval — it paused in a run that had no terminal to ask
   * on (`keel run` in a script) — shows the call exactly and asks about it inline, as approvals in a
   * turn are asked, then continues that turn with the answer (as `keel sessions approve|reject`
   * would). Resolves false when the session still waits (Ctrl-C at the question) or the continued turn
   * did not end (cancelled, paused again); true otherwise. Never throws.
   */
  async settleWaiting(): Promise<boolean> {
    const id = this.sessionId;
    if (!id || !this.exists(id)) return true;
    const request = await waitingApproval(this.host, id);
    if (!request) return true;
    let answer: ApprovalAnswer;
    try {
      answer = await this.cancellable((signal) => this.approver.approve(request, signal));
    } catch {
      this.renderer.notice(`Not answered: session ${id} still waits for that approval; your next prompt asks again.`, "warn");
      return false;
    }
    // "always" is remembered where the call runs, as for a call asked in a turn: not for a strict ask (see settleAsk)
    const out = await this.running((options) =>
      this.runtime.decide(id, answer === "no" ? "reject" : "approve", { ...options, ...(answer === "always" ? { approvedAlways: true } : {}) }),
    );
    return out !== undefined && out.reason !== "cancelled" && out.reason !== "awaiting_approval";
  }

  /** Runs one turn of the agent under `cancellable`, drawing it as it goes and its status line after; a failure is shown. */
  private async running(run: (options: AgentRunOptions) => Promise<AgentOutcome>): Promise<AgentOutcome | undefined> {
    let out: AgentOutcome | undefined;
    try {
      out = await this.cancellable((signal) =>
        run({
          approver: this.approver,
          yes: this.ctx.globals().yes,
          sessionAllow: this.allowed,
          signal,
          onText: (delta) => this.text(delta),
          onEvent: (e, from) => {
            if (e.type === "model_call" && !this.midLine && !this.screen.holding) this.thinking.show();
            this.renderer.event(e, from);
          },
        }),
      );
    } catch (error) {
      this.renderer.notice(errorMessage(error), "error");
    }
    this.endLine();
    if (out) this.finish(out);
    return out;
  }

  /** Whether session `id` exists in this workspace. */
  exists(id: string): boolean {
    return existsSync(sessionPaths(this.host.workspace.stateDir, id).meta);
  }

  /** Ends a partial line of streamed answer text. */
  endLine(): void {
    this.thinking.hide();
    if (this.midLine) this.screen.write("\n");
    this.midLine = false;
  }

  private text(delta: string): void {
    if (delta === "") return;
    this.thinking.hide();
    this.midLine = !delta.endsWith("\n");
    this.screen.write(terminalText(delta));
  }

  private finish(out: AgentOutcome): void {
    const prior = this.usage?.sessionId === out.sessionId ? this.usage.totals : zeroUsage();
    const cost: TurnCost = {
      sessionId: out.sessionId,
      turn: this.turns.length + 1,
      inputTokens: out.usage.inputTokens - prior.inputTokens,
      outputTokens: out.usage.outputTokens - prior.outputTokens,
      modelCalls: out.usage.modelCalls - prior.modelCalls,
      toolCalls: out.usage.toolCalls - prior.toolCalls,
    };
    this.use(out.sessionId, out.usage);
    this.turns.push(cost);
    if (out.reason === "cancelled") this.renderer.notice(`Turn cancelled. Session ${out.sessionId} is saved; your next prompt continues it.`, "warn");
    else if (out.message) this.renderer.notice(out.message, out.ok ? "info" : "warn");
    this.screen.write(
      this.c.dim(
        `[session ${out.sessionId} · ${out.reason} · ${cost.modelCalls} model calls, ${cost.toolCalls} tool calls · ${cost.inputTokens} in / ${cost.outputTokens} out tokens]`,
      ) + "\n",
    );
  }

  /** Makes `id` the session the next prompt continues; `usage` is what it had used so far (not counted in `/cost`). */
  use(id: string | undefined, usage?: Totals): void {
    // "always" answers hold for the session they were given in
    if (this.sessionId !== undefined && id !== this.sessionId) this.allowed.clear();
    this.sessionId = id;
    this.usage = id ? { sessionId: id, totals: { ...zeroUsage(), ...pick(usage) } } : undefined;
  }

  /** The current session's usage as of its last turn (or resume). */
  private usage?: { sessionId: string; totals: Totals };
}

type Totals = Pick<SessionUsage, "inputTokens" | "outputTokens" | "modelCalls" | "toolCalls">;

function pick(u: Totals | undefined): Partial<Totals> {
  return u ? { inputTokens: u.inputTokens, outputTokens: u.outputTokens, modelCalls: u.modelCalls, toolCalls: u.toolCalls } : {};
}

/** Sums the costs of `turns`. */
export function sessionTotals(turns: readonly TurnCost[]): Omit<TurnCost, "sessionId" | "turn"> {
  const sum = zeroUsage();
  for (const t of turns) {
    sum.inputTokens += t.inputTokens;
    sum.outputTokens += t.outputTokens;
    sum.modelCalls += t.modelCalls;
    sum.toolCalls += t.toolCalls;
  }
  return sum;
}

function zeroUsage(): Totals {
  return { inputTokens: 0, outputTokens: 0, modelCalls: 0, toolCalls: 0 };
}
