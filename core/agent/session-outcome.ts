import { existsSync } from "node:fs";
import { inToolProcess } from "../trust-hint.js";
import { MODEL_APPROVAL_STOP } from "../settle-ask.js";
import { callArgumentsText } from "../visible-json.js";
import { StateError, UsageError } from "../errors.js";
import type { Host } from "../host.js";
import { sessionPaths } from "../session/session-paths.js";
import type { SessionMeta, SessionState } from "../session/session-types.js";
import { workingDirProblem } from "../workspace.js";
import type { ActiveSession } from "./active-session.js";
import { overBudget, type StopReason } from "./agent-loop.js";
import type { AgentOutcome } from "./agent-runtime.js";
import { describeWaiting, waitingCall, type WaitingCall } from "./waiting-call.js";
import { treeUsage } from "./tree-budget.js";

/**
 * A resumed session's pinned directory comes from `session.json`, which a repository can commit:
 * it must still exist and lie in the workspace (or a managed worktree git links to it), else the
 * resume is refused before any tool runs there.
 */
export function checkPinnedDir(host: Host, id: string, meta: SessionMeta): void {
  if (typeof meta.cwd === "string" && !existsSync(meta.cwd))
    throw new StateError(
      `Session ${id} works in ${meta.cwd}, which no longer exists (its worktree was removed?), so its tools cannot run there. Start a new session instead.`,
      meta.cwd,
    );
  const problem = workingDirProblem(host.workspace, meta.cwd);
  if (problem)
    throw new UsageError(
      `Session ${id} is pinned to a directory keel will not work in: ${problem}. Its session.json (${sessionPaths(host.workspace.stateDir, id).meta}) was not written by keel for this workspace, or was edited; nothing was run. Start a new session instead.`,
    );
}

/**
 * Who reads an outcome's message: the user (their terminal, an embedding program), the output of a command keel runs
 * for a tool (`KEEL_CALL`: a model reads it, and `keel sessions approve|reject` is refused there), or a model directly
 * (a sub-agent's outcome in the result of a `delegate_agent` or workflow step a model called).
 */
export type OutcomeReader = "user" | "tool-process" | "model";

/**
 * Who reads the outcome of a run of `s` that stopped for `reason`: see OutcomeReader (`readByModel`: the run's caller
 * said a model reads its pause; `stopReadByModel`: a model reads how it ends otherwise, as a `delegate_agent` result).
 */
export function outcomeReader(
  s: { host: Pick<Host, "env">; options: { readByModel?: boolean; stopReadByModel?: boolean } },
  reason?: StopReason,
): OutcomeReader {
  if (inToolProcess(s.host.env)) return "tool-process";
  if (s.options.readByModel) return "model";
  return reason !== undefined && reason !== "awaiting_approval" && s.options.stopReadByModel ? "model" : "user";
}

/** The outcome of a run of the open session `s` that stopped for `reason` (a pause names the call deciding it runs, a sub-agent's too). */
export async function outcome(s: ActiveSession, reason: StopReason): Promise<AgentOutcome> {
  const waiting = reason === "awaiting_approval" ? await waitingCall(s.host.workspace.stateDir, s.state) : undefined;
  const reader = outcomeReader(s, reason);
  return outcomeOf(s.id, s.state, reason, reason === "budget" ? budgetMessage(s, reader) : undefined, waiting, reader);
}

/**
 * The outcome a session's state shows for `reason` (`budget`: keel's message naming the budget, when
 * known; `found`: the waiting call as waitingCall found it, with the sub-agent call it decides; `reader`: who reads
 * the message, which says how a pause is decided — see decideHint — and whether a stop names the command to go on:
 * only the user's: see goOnHint).
 */
export function outcomeOf(
  id: string,
  state: SessionState,
  reason: StopReason,
  budget?: string,
  found?: WaitingCall,
  reader: OutcomeReader = "user",
): AgentOutcome {
  const own = state.pending?.calls.find((c) => c.status === "awaiting_approval");
  const waiting = found ?? (own ? { call: own } : undefined);
  const message =
    reason === "answer"
      ? undefined
      : reason === "error"
        ? `The run failed: ${state.error ?? "unknown error"}`
        : reason === "awaiting_approval"
          ? `Session ${id} is waiting for approval to run ${waiting ? describeWaiting(waiting, (tool, args) => `${tool}(${callArgumentsText(args)})`) : "a tool call"}. ${decideHint(id, reader)}`
          : reason === "max_steps"
            ? reader === "user"
              ? `Stopped after the maximum number of steps; continue with keel run --resume ${id}.`
              : `Stopped after the maximum number of steps the user set for a turn. ${goOnHint()}`
            : reason === "budget"
              ? (budget ??
                (reader === "user"
                  ? `Stopped: a session budget is used up (see agent.budgets in keel config); continue with keel run --resume ${id}.`
                  : `Stopped: a session budget the user set is used up. ${goOnHint()}`))
              : reason === "hook_stop"
                ? `Stopped by a hook (continue: false): ${hookStopText(state)} ${reader === "user" ? `Continue with keel run --resume ${id}.` : goOnHint()}`
                : "Cancelled.";
  const lastText = [...state.messages].reverse().find((m) => m.role === "assistant")?.content;
  const text = reason === "answer" ? (state.lastAnswer ?? "") : reason === "error" ? message! : typeof lastText === "string" ? lastText : "";
  return {
    ok: reason === "answer",
    sessionId: id,
    status: state.status,
    reason,
    text,
    ...(message ? { message } : {}),
    usage: { ...state.usage },
    treeUsage: treeUsage(state),
    ...(waiting
      ? {
          pendingApproval: {
            callId: waiting.call.id,
            tool: waiting.call.name,
            arguments: waiting.call.arguments,
            ...(waiting.subAgent ? { subAgent: waiting.subAgent } : {}),
          },
        }
      : {}),
  };
}

/**
 * How a pause is decided: on the user's own terminal, with `keel sessions approve|reject`. A model reads that the
 * decision is the user's and no command of its own takes it: inside a command keel runs for a tool those commands are
 * refused, so the text asks it to have the user run them in their terminal; a model reading a sub-agent's pause in a
 * tool result is told to stop and let the user decide (MODEL_APPROVAL_STOP).
 */
export function decideHint(id: string, reader: OutcomeReader): string {
  if (reader === "model") return MODEL_APPROVAL_STOP;
  return reader === "tool-process"
    ? `Deciding it is the user's, not yours: \`keel sessions approve|reject\` is refused inside a command keel runs for a tool. Ask the user to run \`keel sessions approve ${id}\` or \`keel sessions reject ${id}\` in their own terminal; do not retry it.`
    : `Approve with \`keel sessions approve ${id}\` or reject with \`keel sessions reject ${id}\`.`;
}

/**
 * What a model reads about a stop the user set up (steps, a budget, a hook), in place of the user's `keel run --resume`:
 * a model running that through bash would go around the stop (a resume is another turn of steps), so going on is the
 * user's decision and the model is asked to report instead.
 */
function goOnHint(): string {
  return "Going on is the user's decision, not yours: do not resume the session or try to go around this stop; report what was done and what is left.";
}

/**
 * Names the exhausted budget and how to go on. When a model reads it (a sub-agent's outcome is its parent's model's tool
 * result, a nested keel run's output a model's bash result) it is told raising a budget is the user's decision, not how
 * to raise it (`keel config set`), which is the user's advice.
 */
function budgetMessage(s: ActiveSession, reader: OutcomeReader): string {
  const b = overBudget(s);
  if (!b)
    return reader === "user"
      ? `Stopped: a session budget is used up (see agent.budgets in keel config); continue with keel run --resume ${s.id}.`
      : `Stopped: a session budget the user set is used up. ${goOnHint()}`;
  const toModel = reader !== "user";
  const next = (id: string) =>
    toModel
      ? "Raising a budget is the user's decision, not yours: do not try to raise it or go around it; report what was done and what is left."
      : `Raise it (keel config set agent.budgets.${b.key} N) and continue with keel run --resume ${id}.`;
  if (b.inherited)
    return `Stopped: this sub-agent used up what its parent session had left of agent.budgets.${b.key} (${b.limit}); budgets count a session together with its sub-agents. ${next(s.meta.parentSessionId ?? s.id)}`;
  return `Stopped: the session used up its budget agent.budgets.${b.key} (${b.limit}). ${next(s.id)}`;
}

/** The text of the tool result a stopping hook produced (its stopReason), from the last result that carries one. */
function hookStopText(state: SessionState): string {
  const last = [...state.messages].reverse().find((m) => m.role === "tool" && !m.content.startsWith("Not run: a hook stopped processing"));
  return (last?.content.split("\n")[0] ?? "a hook stopped processing").slice(0, 300);
}
