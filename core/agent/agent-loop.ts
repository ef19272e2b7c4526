import { existsSync, statSync } from "node:fs";
import { errorMessage } from "../errors.js";
import { ModelError } from "../model/model-error.js";
import { reportedUsage, tokenCount } from "../model/reported-usage.js";
import { drainQueue } from "../session/message-queue.js";
import type { ActiveSession } from "./active-session.js";
import { economize } from "./context-economy.js";
import { repairConversation } from "./conversation-repair.js";
import { runPendingCalls, type ApprovalDecision } from "./run-tool-calls.js";
import { fireAgentStop } from "./session-hooks.js";
import { toolMenu } from "./tool-menu.js";
import { exhaustedBudget } from "./tree-budget.js";
import { MAX_CALLS_PER_RESPONSE } from "./unrun-calls.js";

/** Why a turn stopped. */
export type StopReason = "answer" | "max_steps" | "budget" | "error" | "cancelled" | "awaiting_approval" | "hook_stop";

/**
 * The loop. Each step, in order: finish pending tool calls → check stop conditions → drain
 * queued messages → assemble context (tool menu, pruning/compaction) → call the model
 * (streaming) → persist the assistant message → run its tool calls one by one, persisting
 * each observation. Tool errors are observations; model errors end the turn with `error`.
 */
export async function driveSession(s: ActiveSession, decision?: ApprovalDecision): Promise<StopReason> {
  const maxSteps = s.options.maxSteps ?? s.state.maxSteps ?? s.settings.maxSteps;
  let stopHookActive = false;
  for (;;) {
    if (s.state.pending) {
      const outcome = await runPendingCalls(s, toolMenu(s), decision);
      decision = undefined;
      if (outcome === "paused") return "awaiting_approval";
      if (outcome === "stopped") return "hook_stop";
    }
    if (s.options.signal?.aborted) return "cancelled";
    if (s.state.turnSteps >= maxSteps) return "max_steps";
    const budget = overBudget(s);
    if (budget) {
      s.emit("budget_exceeded", { budget: `${budget.key} (${budget.limit})` });
      return "budget";
    }
    await drainQueued(s);
    // Every tool call answered right after it (a history an older keel or an edited log broke): else the endpoint refuses it on every resume.
    if (repairConversation(s)) await s.save();
    const menu = toolMenu(s);
    const estimate = await economize(s, menu.tools);
    s.state.usage.lastRequestTokens = estimate;
    const callIndex = s.state.usage.modelCalls;
    s.emit("model_call", {
      step: s.state.turnSteps + 1,
      callIndex,
      model: s.model.id,
      estimatedTokens: estimate,
      messages: s.state.messages.length,
      tools: menu.tools.length,
      toolTokens: menu.toolTokens,
      fullToolTokens: menu.fullToolTokens,
      deferredTools: menu.deferred.size || undefined,
    });
    s.events.flush(false); // reaches the kernel before the wait; fsynced at turn ends, pauses and before side effects
    const started = performance.now();
    let response;
    try {
      response = await s.model.complete(
        { messages: s.state.messages, tools: menu.tools, sessionId: s.id, callIndex, maxOutputTokens: s.model.profile.maxOutputTokens },
        {
          signal: s.options.signal,
          onText: s.options.onText,
          onRetry: (retry) => {
            s.emit("model_retry", { callIndex, ...retry });
            s.events.flush(false);
          },
        },
      );
    } catch (error) {
      if (s.options.signal?.aborted) return "cancelled";
      s.state.error = errorMessage(error);
      s.emit("model_error", { callIndex, message: s.state.error, transient: error instanceof ModelError ? error.transient : undefined });
      return "error";
    }
    // Ids as some servers send them (one constant id, repeats within a response) would mix calls up.
    const toolCalls = s.claimCallIds(response.toolCalls, callIndex);
    s.state.turnSteps++;
    s.state.usage.modelCalls++;
    // Only counts keel can add up (any backend's usage, a state file keel did not write): budgets count these sums.
    const usage = response.usage ? reportedUsage(response.usage.inputTokens, response.usage.outputTokens) : undefined;
    const counted = (n: unknown) => tokenCount(n) ?? 0;
    s.state.usage.inputTokens = counted(s.state.usage.inputTokens) + (usage?.inputTokens ?? estimate);
    s.state.usage.outputTokens =
      counted(s.state.usage.outputTokens) + (usage?.outputTokens ?? Math.ceil((response.text.length + JSON.stringify(response.toolCalls).length) / 4));
    s.emit("model_response", {
      callIndex,
      durationMs: Math.round(performance.now() - started),
      finishReason: response.finishReason,
      toolCalls: toolCalls.map((c) => ({ id: c.id, name: c.name })),
      textChars: response.text.length,
      usage,
      ...(response.shownReasoningChars ? { shownReasoningChars: response.shownReasoningChars } : {}),
    });
    if (response.text && toolCalls.length) s.options.onText?.("\n");
    // The reasoning behind tool calls goes back with them (thinking models need it), to the model
    // that produced it (its origin is recorded with it); an answer's is not kept.
    const providerData = toolCalls.length > 0 && (response.reasoning !== undefined || toolCalls.some((c) => c.extraContent));
    // Cut off by the output limit: a call whose arguments are not JSON is answered so (see run-tool-calls), not
    // run; recorded with the message itself, so that a crash before the checkpoint below does not lose it.
    const cutOff = toolCalls.length > 0 && response.finishReason === "length" ? { cutOff: s.model.profile.maxOutputTokens } : {};
    s.addMessage({
      role: "assistant",
      content: response.text,
      ...(toolCalls.length ? { toolCalls, ...(response.reasoning ? { reasoning: response.reasoning } : {}) } : {}),
      ...(providerData && response.origin ? { origin: response.origin } : {}),
      ...cutOff,
    });
    if (toolCalls.length === 0) {
      // A Stop hook may send the agent on (once per answer; `stopHookActive` tells it it already did).
      const goOn = await fireAgentStop(s, stopHookActive);
      if (goOn !== undefined) {
        stopHookActive = true;
        s.addMessage({ role: "user", kind: "hooks", content: goOn });
        await s.save();
        continue;
      }
      s.state.lastAnswer = response.text;
      await s.save();
      return "answer";
    }
    // Provider data stays on the message (logged once), not on the pending calls (logged at every save).
    // Calls past the most of one response are answered "not run" when the others are done (see unrun-calls).
    const run = toolCalls.slice(0, MAX_CALLS_PER_RESPONSE);
    if (run.length < toolCalls.length) s.emit("tool_calls_not_run", { callIndex, count: toolCalls.length - run.length, max: MAX_CALLS_PER_RESPONSE });
    s.state.pending = { turn: s.state.turn, calls: run.map(({ extraContent: _x, ...c }) => ({ ...c, status: "queued" as const })), ...cutOff };
    await s.save();
  }
}

/** The line before a queued message a command keel ran for a tool queued: the model is told the user did not type it. */
export const QUEUED_BY_TOOL = "[queued by a command keel ran for a tool, not by the user]";

/** Moves queued `keel send` messages (FIFO) into the conversation; one a tool's command queued is given as not the user's words. */
export async function drainQueued(s: ActiveSession): Promise<number> {
  if (!existsSync(s.paths.queue) || statSync(s.paths.queue).size <= 3) return 0;
  const items = await drainQueue(s.paths.queue, { id: s.id, seals: s.seals });
  for (const item of items) s.addMessage({ role: "user", kind: "queued", content: item.from === "tool" ? `${QUEUED_BY_TOOL}\n${item.text}` : item.text });
  if (items.length) {
    const fromTool = items.filter((i) => i.from === "tool").length;
    s.emit("queue_drained", { count: items.length, ...(fromTool ? { fromTool } : {}) });
    await s.save();
  }
  return items.length;
}

/**
 * The first budget of `agent.budgets` the session has used up together with its sub-agents (its
 * key and limit; `inherited` when what its parent had left set it), or undefined.
 */
export function overBudget(s: ActiveSession): { key: "maxModelCalls" | "maxToolCalls" | "maxTokens"; limit: number; inherited: boolean } | undefined {
  return exhaustedBudget(s.settings.budgets, s.state);
}
