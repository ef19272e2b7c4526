import { logEvents } from "../event-log.js";
import { unrecordedMayHaveRun } from "../read-only-claim.js";
import type { PendingCall, PendingTurn } from "../session/session-types.js";
import type { ActiveSession, SessionEventFields } from "./active-session.js";
import { invalidArgumentsObservation, parseCallArguments } from "./call-arguments.js";
import { loopObservation } from "./loop-observation.js";
import { safeParse } from "./run-tool-calls.js";
import { observationText } from "./tool-guidance.js";
import { answerUnrun, TOO_MANY_CALLS } from "./unrun-calls.js";

/**
 * What a pending call with no record of its start is answered on resume (`code`: how it ended, when that was
 * recorded but its result was not): keel writes a call that may have side effects to its log (`tool_execute`)
 * before running its tool (after the checks, `beforeTool` hooks included), and refuses it when that write fails,
 * so its tool was not run.
 */
export function notStartedText(code?: string): string {
  const when = code === undefined ? "before this call started" : `after this call ended without running (${code}), before its result was saved`;
  return `Not run: keel stopped (a crash, a kill, or its event log could not be written) ${when}. keel records a call before running its tool when that can change state, and has no such record: the tool was not run (a PreToolUse hook may have run; a tool that only reads may have read, but changed nothing). Make the call again if you still need it.`;
}

/**
 * Recovers a session whose previous process died mid-turn (status still `running`):
 * records the interrupted turn and a `recovery` event, and gives every pending tool call that started
 * (`tool_execute` in the log) without a recorded outcome an observation saying its outcome is unknown. A call
 * with no record of starting was never run (notStartedText: keel records a call with side effects before running
 * it, and refuses it when it cannot) — unless its tool is not keel's own (read-only by a server's or plugin's claim,
 * which keel does not record first) or no longer resolves (unrecordedMayHaveRun): its outcome is unknown too. One whose arguments do not parse (e.g. cut
 * off by the output limit) is answered as `runOne` would. Never re-executes.
 * A call whose last record is `approval_asked` (the process died while a person was asked) was
 * never run: the session waits for its approval again (`awaiting_approval`, as a paused turn),
 * the calls after it still queued. Returns the ids of the calls given an unknown outcome.
 */
export async function recoverCrashedTurn(s: ActiveSession): Promise<string[]> {
  const pending = s.state.pending ?? unanswered(s);
  const unknown = pending ? pending.calls.filter((c) => c.status !== "done") : [];
  const seen = new Map<string, { started: boolean; asked?: boolean; finished?: { ok: unknown; code: unknown } }>();
  if (unknown.length) {
    const ids = new Set(unknown.map((c) => c.id));
    // A checkpoint is written only between calls, so every record of an unfinished call follows it.
    // Read line by line: the log past the checkpoint is never held whole.
    for (const item of logEvents(s.paths.events, { from: s.logTailStart })) {
      if (!("event" in item)) continue;
      const e = item.event;
      const id = "callId" in e ? e.callId : undefined;
      if (!id || !ids.has(id)) continue;
      // the last record wins: an attempt that began after an observation (e.g. the approved
      // re-run of a call that first ended with approval_required) supersedes that observation
      if (e.type === "tool_observation") seen.set(id, { started: seen.get(id)?.started ?? false, finished: { ok: e.ok, code: e.code } });
      else if (e.type === "tool_execute") seen.set(id, { started: true });
      else if (e.type === "approval_asked") seen.set(id, { started: false, asked: true });
      else if (seen.get(id)?.finished) seen.set(id, { started: false });
      // any other record (a refusal after the question, a new attempt) ends a question
      else seen.set(id, { started: seen.get(id)?.started ?? false });
    }
  }
  // A call put to a person when the process died never ran: it waits again, the calls after it stay queued.
  const asked = unknown.findIndex((c) => seen.get(c.id)?.asked === true);
  const settled = asked < 0 ? unknown : unknown.slice(0, asked);
  const notRun: string[] = [];
  for (const call of settled) {
    const info = seen.get(call.id);
    // Arguments that do not parse (cut off by the output limit, or not JSON): keel never runs such a call, so its outcome is known.
    const parsed = info?.started || info?.finished ? undefined : parseCallArguments(call.arguments, pending?.cutOff);
    if (parsed && "error" in parsed) {
      call.status = "done";
      notRun.push(call.id);
      s.addMessage({
        role: "tool",
        toolCallId: call.id,
        name: call.name,
        content: observationText(invalidArgumentsObservation(call.name, parsed.error, pending?.cutOff)),
      });
      continue;
    }
    // No record of its start: it never ran (refused because keel could not record it, or never reached), unless its
    // tool is not keel's own: read-only by a claim keel cannot check, it was not recorded before running (outcome unknown).
    if (!info?.started && !unrecordedMayHaveRun(s.host, call.name)) {
      call.status = "done";
      notRun.push(call.id);
      const observation = loopObservation(
        call.name,
        "permission",
        "precondition_failed",
        notStartedText(info?.finished ? String(info.finished.code) : undefined),
        {
          outcome: "not_run",
          callId: call.id,
        },
      );
      s.addMessage({ role: "tool", toolCallId: call.id, name: call.name, content: observationText(observation) });
      continue;
    }
    const what = info?.finished
      ? `it finished (ok=${String(info.finished.ok)}, code=${String(info.finished.code)}) but its output was lost`
      : info?.started
        ? "it was running and may or may not have run to completion or taken effect"
        : "keel has no record of it starting, but its tool is not keel's own (one its server or plugin says only reads is not recorded before it runs), so it may have run";
    const observation = loopObservation(
      call.name,
      "execute",
      "execution_failed",
      `Outcome unknown: keel stopped (a crash, a kill, or its event log could not be written) during this call; ${what}. It was NOT re-executed. Check the current state (e.g. read the file) before repeating it.`,
      { outcome: "unknown", started: Boolean(info?.started), callId: call.id },
    );
    call.status = "done";
    s.addMessage({ role: "tool", toolCallId: call.id, name: call.name, content: observationText(observation) });
  }
  const unknownOutcome = settled.filter((c) => !notRun.includes(c.id));
  const recovery = {
    turn: s.state.turn,
    previousPid: s.state.pid,
    unknownCalls: unknownOutcome.map((c) => ({ id: c.id, tool: c.name, started: Boolean(seen.get(c.id)?.started) })),
  };
  if (asked >= 0) {
    await waitAgain(s, pending!, unknown[asked]!, recovery);
    return unknownOutcome.map((c) => c.id);
  }
  // calls of the response keel did not take (past the most of one response) never ran
  answerUnrun(s, TOO_MANY_CALLS);
  if (pending) {
    for (const text of pending.calls.flatMap((c) => (c.guidance ? [c.guidance] : []))) s.addMessage({ role: "user", kind: "guidance", content: text });
  }
  s.state.pending = null;
  s.emit("recovery", recovery);
  s.state.status = "idle";
  s.state.reason = "interrupted";
  await s.save();
  return unknownOutcome.map((c) => c.id);
}

/** The process died while `call` was put to a person: it was not run, and the session waits for its approval again. */
async function waitAgain(s: ActiveSession, pending: PendingTurn, call: PendingCall, recovery: SessionEventFields<"recovery">): Promise<void> {
  call.status = "awaiting_approval";
  s.state.pending = pending;
  s.emit("recovery", recovery);
  const input = safeParse(call.arguments);
  const message = `keel stopped (crash or kill) while asking to run ${call.name}; it was not run. It waits for your approval again.`;
  s.emit("approval_paused", { callId: call.id, tool: call.name, input, message });
  s.state.status = "awaiting_approval";
  s.state.reason = "awaiting_approval";
  await s.save(true);
}

/**
 * The tool calls of the last assistant message that have no result yet, as a pending turn: the log
 * ends after that message but before its checkpoint entry (a crash, or a torn last write).
 */
function unanswered(s: ActiveSession): PendingTurn | null {
  const msgs = s.state.messages;
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i]!;
    if (m.role !== "assistant") continue;
    const answered = new Set(msgs.slice(i + 1).flatMap((r) => (r.role === "tool" ? [r.toolCallId] : [])));
    const open = (m.toolCalls ?? []).filter((c) => !answered.has(c.id));
    if (!open.length) return null;
    // the output limit that cut the response, recorded with the message (the checkpoint entry that also holds it was lost)
    const cutOff = typeof m.cutOff === "number" ? { cutOff: m.cutOff } : {};
    return { turn: s.state.turn, calls: open.map((c) => ({ ...c, status: "queued" as const })), ...cutOff };
  }
  return null;
}
