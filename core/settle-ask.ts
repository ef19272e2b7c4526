import { errorMessage } from "./errors.js";
import type { HookPermission } from "./hooks.js";
import type { Host } from "./host.js";
import type { PermissionDecision } from "./permissions.js";
import type { ApprovalAnswer, EventSink, ObservationCode, RunContext, ToolDefinition } from "./types.js";
import { MAX_TIMER_MS } from "./tool-call.js";
import { ABORTED, untilAborted } from "./until-aborted.js";
import { inToolProcess, modelReads } from "./trust-hint.js";

/**
 * What a call that needs approval tells a model about it: that the decision is the user's, and nothing it could run
 * or write to take it (`--yes`, an allow rule, `keel trust`, `keel sessions approve`): those are the user's to give.
 */
export const MODEL_APPROVAL_STOP =
  "Approving it is the user's decision, not yours: do not try to approve, allow or re-run it another way (no config edit or keel command of yours can approve it). Stop, tell the user which call you need and why, and let them decide.";

/** What the permission phase knows about a call whose decision is `ask`. */
export interface AskedCall {
  callId: string;
  calledAs: string;
  tool: ToolDefinition;
  input: unknown;
  run: RunContext;
  cwd: string;
  permission: PermissionDecision;
  /** A `beforeTool` tap's say (a hook's or a skill's `allow`). */
  hookPermission?: HookPermission;
  events: EventSink;
}

/** How an `ask` ended: approved (and by whom), or refused with the observation's code, text and metadata. */
export type AskSettlement = { approvedBy: string } | { refused: { code: ObservationCode; message: string; metadata: Record<string, unknown> } };

/**
 * Settles an `ask`, in this order: the user's yes already given for this very call (`keel sessions
 * approve`); then, except for a strict ask (a call keel could not check exactly), an "always" of this
 * session, a tap's `allow`, `--yes`; else the approver (a terminal prompt, after the `notification` hook). Without an approver the call needs approval (`approval_required`,
 * saying how to give it); a cancelled prompt is `cancelled`, a no is `user_denied`. Records the
 * `tool_permission` event of a refusal; never throws.
 */
export function settleAsk(host: Host, call: AskedCall): AskSettlement | Promise<AskSettlement> {
  const { tool, run, permission, hookPermission } = call;
  // Synchronous when approved without asking (the common case keeps the call free of an extra async step).
  // A strict ask (a call keel could not check exactly) is approved only by an explicit answer.
  // A control-file write is not covered by an "always" given for the tool on another call (it acts like an allow rule).
  if (run.userApproved) return approvedByUser(run, tool, permission, run.userApproved === "always");
  if (!permission.strict && !permission.control && run.sessionAllow?.has(tool.name)) return { approvedBy: "session" };
  if (!permission.strict && hookPermission?.decision === "allow") return { approvedBy: `hook: ${hookPermission.by}` };
  if (!permission.strict && (run.yes ?? host.options.yes)) return { approvedBy: "--yes" };
  return askApprover(host, call);
}

/**
 * True when a model reads the text of this call's `approval_required`: a keel run by a command keel started for a
 * tool (its output goes back to that model), or a caller whose results a model reads (a workflow the model runs, a
 * prompt command's line) — not an agent session's own calls, where `approval_required` pauses the session and the
 * text is shown to the user with `keel sessions approve|reject`.
 */
export function approvalReadByModel(host: Pick<Host, "env">, run: RunContext): boolean {
  if (inToolProcess(host.env)) return true;
  return modelReads(run) && run.origin !== "agent" && run.origin !== "sub-agent";
}

async function askApprover(host: Host, call: AskedCall): Promise<AskSettlement> {
  const { callId, calledAs, tool, input, run, cwd, permission, events } = call;
  const approver = run.approver ?? host.options.approver;
  if (!approver) {
    events.emit({
      type: "tool_permission",
      callId,
      tool: calledAs,
      action: "ask",
      outcome: "approval_required",
      rule: permission.rule,
      ...(permission.strict ? { strict: true } : {}),
    });
    if (approvalReadByModel(host, run))
      return {
        refused: {
          code: "approval_required",
          message: `Approval required to run ${calledAs} (${permission.reason}). Nothing was executed. ${MODEL_APPROVAL_STOP}`,
          metadata: { rule: permission.rule, risk: tool.risk, ...(permission.strict ? { strict: true } : {}) },
        },
      };
    const how = permission.strict
      ? "Answer the prompt on a terminal (--yes does not approve a call keel could not check), or rewrite the command without the part named above."
      : permission.control
        ? "Re-run with --yes, or answer the prompt on a terminal (an allow rule does not approve this write)."
        : host.trusted
          ? // Trusted with `keel trust`, a rule written by hand is a change to what it approved: it waits for the next one.
            `Re-run with --yes, answer the prompt on a terminal, or add an allow rule under "permissions" in keel.config.json${host.trust.approved ? ", then run `keel trust` to approve it (one you add with `keel config set` needs no new `keel trust`)" : ""}.`
          : // An untrusted workspace's allow rules are ignored: name the file whose rule would work.
            `Re-run with --yes, answer the prompt on a terminal, or add an allow rule under "permissions" in $KEEL_HOME/config.json (a workspace's keel.config.json adds allow rules only once you run \`keel trust\`).`;
    // Through an alias, a rule must name the tool that runs: one naming the alias counts only at its plugin's own level (see PermissionPolicy).
    // The example is as narrow as the tool allows: a bare "bash" would allow every command, not this one.
    const example = tool.permissionKey
      ? `e.g. "${tool.name}(…)" with a pattern this call matches; a bare "${tool.name}" would allow every ${tool.name} call`
      : `e.g. "${tool.name}"`;
    const viaAlias =
      !permission.strict && !permission.control && calledAs !== tool.name
        ? ` ${calledAs} is an alias of ${tool.name}: the allow rule must name ${tool.name} (${example}), the tool that runs; a rule naming ${calledAs} counts only at the level of the plugin that defines it.`
        : "";
    return {
      refused: {
        code: "approval_required",
        message: `Approval required to run ${calledAs} (${permission.reason}). Nothing was executed. ${how}${viaAlias}`,
        metadata: { rule: permission.rule, risk: tool.risk, ...(permission.strict ? { strict: true } : {}) },
      },
    };
  }
  // On disk before anyone is asked: a process killed while waiting leaves a call a resume asks about again (crash-recovery.ts).
  events.emit({ type: "approval_asked", callId, tool: calledAs });
  try {
    events.flush();
  } catch {
    // kept pending: the question is asked all the same (the record only helps a resume after a crash)
  }
  if (host.hooks.notification.taps.length !== 0)
    await host.hooks.notification
      .promise({ host, sessionId: run.sessionId, cwd, events: run.events, message: `keel needs your permission to use ${calledAs}`, kind: "permission_prompt" })
      .catch((error: unknown) => events.emit({ type: "hook_error", callId, tool: calledAs, hook: "notification", message: errorMessage(error) }));
  const signal = run.signal ?? AbortSignal.timeout(MAX_TIMER_MS);
  const answer = await untilAborted(
    // an approver that throws instead of rejecting fails the same way (a no)
    new Promise<ApprovalAnswer>((resolve) =>
      resolve(approver.approve({ tool: calledAs, resolvedTool: tool.name, input, risk: tool.risk, rule: permission.rule, reason: permission.reason }, signal)),
    ),
    signal,
  )
    .then((answered) => (answered === ABORTED ? ("cancelled" as const) : answered))
    // Cancelled while asking (Ctrl-C, the caller's signal): not a refusal. Any other failure of the approver is a no.
    .catch((error: unknown) => (signal.aborted || (error as Error | undefined)?.name === "AbortError" ? ("cancelled" as const) : ("no" as const)));
  if (answer === "cancelled") {
    events.emit({ type: "tool_permission", callId, tool: calledAs, action: "ask", outcome: "cancelled" });
    return {
      refused: { code: "cancelled", message: `The approval prompt for ${calledAs} was cancelled before an answer. Nothing was executed.`, metadata: {} },
    };
  }
  if (answer === "no") {
    events.emit({ type: "tool_permission", callId, tool: calledAs, action: "ask", outcome: "user_denied" });
    return {
      refused: {
        code: "user_denied",
        message: `The user declined to run ${calledAs}. Nothing was executed. Do not retry the same call; ask the user or choose another approach.`,
        metadata: {},
      },
    };
  }
  return approvedByUser(run, tool, permission, answer === "always");
}

/**
 * A person's yes; with `always`, the tool is approved for the rest of the session too — except after a strict ask: an
 * "always" for a command keel could not read would approve any command.
 */
function approvedByUser(run: RunContext, tool: ToolDefinition, permission: PermissionDecision, always: boolean): AskSettlement {
  if (always && !permission.strict) run.sessionAllow?.add(tool.name);
  return { approvedBy: "user" };
}
