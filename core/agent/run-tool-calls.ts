import type { Observation } from "../types.js";
import type { ActiveSession } from "./active-session.js";
import { invalidArgumentsObservation, parseCallArguments } from "./call-arguments.js";
import { admitFoundTools, droppedNote, touchFoundTool } from "./found-tools.js";
import { loopObservation } from "./loop-observation.js";
import { notifyUser } from "./session-hooks.js";
import { TOOL_SEARCH, type ToolMenu } from "./tool-menu.js";
import { observationText, toolGuidanceMessage } from "./tool-guidance.js";
import { exhaustedBudget } from "./tree-budget.js";
import { answerUnrun, TOO_MANY_CALLS } from "./unrun-calls.js";

/** A decision on the call that is awaiting approval (from `keel sessions approve|reject`). */
export type ApprovalDecision = "approve" | "reject";

/**
 * Runs the pending tool calls one by one in the returned order through `runToolIntent`,
 * persisting each observation before the next. A non-interactive `ask` pauses the session
 * (`awaiting_approval`, the call persisted). When all calls are done, plugin guidance
 * messages (one per tool) are appended. Returns `paused`, `done`, or `stopped` when a hook answered
 * `continue: false` (the remaining calls get "not run" results). Never throws for tool errors.
 */
export async function runPendingCalls(s: ActiveSession, menu: ToolMenu, decision?: ApprovalDecision): Promise<"paused" | "done" | "stopped"> {
  const pending = s.state.pending;
  if (!pending) return "done";
  for (const call of pending.calls) {
    if (call.status === "done") continue;
    let observation: Observation;
    if (call.status === "awaiting_approval") {
      if (!decision) return "paused";
      s.emit("approval_decision", { callId: call.id, tool: call.name, input: safeParse(call.arguments), decision });
      if (call.child) {
        // delegate_agent waits on its child: the decision is the child's, and the tool continues it
        s.delegateDecision = { callId: call.id, child: call.child, decision };
        try {
          observation = await runOne(s, menu, call, true);
        } finally {
          s.delegateDecision = undefined;
        }
      } else observation = decision === "reject" ? deniedObservation(call.name) : await runOne(s, menu, call, s.options.approvedAlways ? "always" : true);
      decision = undefined;
    } else {
      // The tool-call budget is checked before each call, not only before each model call: one
      // response's many calls cannot run past it (the loop then stops with reason "budget").
      const spent = exhaustedBudget(s.settings.budgets, s.state, ["maxToolCalls"]);
      if (spent) {
        const content = `Not run: the session used up its budget agent.budgets.maxToolCalls (${spent.limit}).`;
        for (const rest of pending.calls.filter((c) => c.status !== "done")) {
          rest.status = "done";
          s.addMessage({ role: "tool", toolCallId: rest.id, name: rest.name, content });
        }
        finishPending(s, content);
        await s.save();
        return "done";
      }
      observation = await runOne(s, menu, call, false);
    }
    if (observation.code === "approval_required") {
      call.status = "awaiting_approval";
      const child = observation.metadata.childSessionId;
      call.child = typeof child === "string" ? child : undefined;
      s.state.status = "awaiting_approval";
      s.state.reason = "awaiting_approval";
      s.emit("approval_paused", { callId: call.id, tool: call.name, input: safeParse(call.arguments), message: observation.content });
      await s.save(true);
      await notifyUser(s, `Session ${s.id} needs your approval to run ${call.name}.`);
      return "paused";
    }
    s.state.usage.toolCalls++;
    let content = observationText(observation);
    if (call.name === TOOL_SEARCH && observation.ok) {
      const { added, dropped, budget } = admitFoundTools(s, menu, (observation.data as { tools?: string[] } | null)?.tools ?? []);
      if (added.length) s.emit("tools_discovered", { tools: added });
      if (dropped.length) {
        s.emit("tools_dropped", { tools: dropped, budgetTokens: Math.round(budget) });
        content += droppedNote(dropped);
      }
    } else touchFoundTool(s, call.name);
    call.guidance = toolGuidanceMessage(observation);
    call.status = "done";
    s.addMessage({ role: "tool", toolCallId: call.id, name: call.name, content, artifact: observation.artifacts[0]?.path });
    // a hook answered `continue: false`: the turn ends here; the calls after this one are not run
    const stop = observation.metadata.hook_stop === true;
    if (stop)
      for (const rest of pending.calls.filter((c) => c.status !== "done")) {
        rest.status = "done";
        s.addMessage({ role: "tool", toolCallId: rest.id, name: rest.name, content: "Not run: a hook stopped processing (continue: false)." });
      }
    if (pending.calls.every((c) => c.status === "done")) finishPending(s);
    await s.save();
    if (stop) return "stopped";
  }
  if (s.state.pending) {
    finishPending(s);
    await s.save();
  }
  return "done";
}

/**
 * All calls are done: the calls of the response keel did not take (past MAX_CALLS_PER_RESPONSE) get
 * their "not run" result (`notRun`), then plugin guidance (one message per tool) follows the tool results, then the hook
 * texts of an approval that continued the turn; the checkpoint is cleared.
 */
function finishPending(s: ActiveSession, notRun = TOO_MANY_CALLS): void {
  answerUnrun(s, notRun);
  for (const text of (s.state.pending?.calls ?? []).flatMap((c) => (c.guidance ? [c.guidance] : []))) {
    s.addMessage({ role: "user", kind: "guidance", content: text });
    s.emit("tool_guidance", { text });
  }
  for (const message of s.afterPending.splice(0)) s.addMessage(message);
  s.state.pending = null;
}

async function runOne(
  s: ActiveSession,
  menu: ToolMenu,
  call: { id: string; name: string; arguments: string },
  approved: boolean | "always",
): Promise<Observation> {
  const cutOff = s.state.pending?.cutOff;
  const parsed = parseCallArguments(call.arguments, cutOff);
  if ("error" in parsed) {
    s.emit("tool_arguments_invalid", { callId: call.id, tool: call.name, message: parsed.error });
    return invalidArgumentsObservation(call.name, parsed.error, cutOff);
  }
  const input = parsed.input;
  const watch = { callId: call.id, tool: call.name, input };
  notify(s.options.onToolStart, watch);
  const observation = await s.host.runTool(
    { tool: call.name, input, callId: call.id },
    // Your yes to this call (`keel sessions approve`) approves it alone, as a terminal's y does: not
    // `--yes` for what it runs in turn (a workflow's steps ask on their own).
    s.runContext({ isVisible: menu.isVisible, ...(approved ? { userApproved: approved } : {}) }),
  );
  notify(s.options.onToolEnd, { ...watch, observation });
  return observation;
}

/** Calls an embedding program's tool callback; one that throws is ignored (it only watches). */
function notify<T>(callback: ((value: T) => void) | undefined, value: T): void {
  try {
    callback?.(value);
  } catch {
    // watching must not change the turn
  }
}

/** The observation a rejected call produces: the model is told nothing ran. */
export function deniedObservation(tool: string): Observation {
  return loopObservation(
    tool,
    "permission",
    "user_denied",
    `The user declined to run ${tool}. Nothing was executed. Do not retry the same call; ask the user or choose another approach.`,
  );
}

/** A call's arguments as parsed JSON, or the text as sent when it is not JSON (for events showing the call). */
export function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
