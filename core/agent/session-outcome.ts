import { existsSync } from "node:fs";
import { StateError, UsageError } from "../errors.js";
import type { Host } from "../host.js";
import { sessionPaths } from "../session/session-paths.js";
import type { SessionMeta } from "../session/session-types.js";
import { workingDirProblem } from "../workspace.js";
import type { ActiveSession } from "./active-session.js";
import { overBudget, type StopReason } from "./agent-loop.js";
import type { AgentOutcome } from "./agent-runtime.js";

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

export function outcome(s: ActiveSession, reason: StopReason): AgentOutcome {
  const waiting = s.state.pending?.calls.find((c) => c.status === "awaiting_approval");
  const message =
    reason === "answer"
      ? undefined
      : reason === "error"
        ? `The run failed: ${s.state.error ?? "unknown error"}`
        : reason === "awaiting_approval"
          ? `Session ${s.id} is waiting for approval to run ${waiting?.name}(${waiting?.arguments}). Approve with \`keel sessions approve ${s.id}\` or reject with \`keel sessions reject ${s.id}\`.`
          : reason === "max_steps"
            ? `Stopped after the maximum number of steps; continue with keel run --resume ${s.id}.`
            : reason === "budget"
              ? budgetMessage(s)
              : "Cancelled.";
  const lastText = [...s.state.messages].reverse().find((m) => m.role === "assistant")?.content;
  const text = reason === "answer" ? (s.state.lastAnswer ?? "") : reason === "error" ? message! : typeof lastText === "string" ? lastText : "";
  return {
    ok: reason === "answer",
    sessionId: s.id,
    status: s.state.status,
    reason,
    text,
    ...(message ? { message } : {}),
    usage: { ...s.state.usage },
    ...(waiting ? { pendingApproval: { callId: waiting.id, tool: waiting.name, arguments: waiting.arguments } } : {}),
  };
}

/** Names the exhausted budget and how to go on. */
function budgetMessage(s: ActiveSession): string {
  const b = overBudget(s);
  if (!b) return `Stopped: a session budget is used up (see agent.budgets in keel config); continue with keel run --resume ${s.id}.`;
  return `Stopped: the session used up its budget agent.budgets.${b.key} (${b.limit}). Raise it (keel config set agent.budgets.${b.key} N) and continue with keel run --resume ${s.id}.`;
}
