import { exactText } from "../terminal-text.js";
import { callArgumentsText } from "../../visible-json.js";
import { randomBytes } from "../../lazy-crypto.js";
import { JsonlEventSink } from "../../events.js";
import type { EventInput } from "../../types.js";
import { adoptQueue, enqueueMessage, peekQueue } from "../../session/message-queue.js";
import { acquireSessionLock, writerAlive } from "../../session/session-lock.js";
import { UsageError } from "../../errors.js";
import { CALL_MARK } from "../../tools/call-mark.js";
import { sessionPaths } from "../../session/session-paths.js";
import { SessionSeals } from "../../session/session-seal.js";
import { listSessions } from "../../session/session-list.js";
import { loadSessionState, readSessionMeta, sessionOrigin, writeSessionSnapshot, type SessionOrigin } from "../../session/session-store.js";
import type { SessionState } from "../../session/session-types.js";
import { resolveWorkspace } from "../../workspace.js";
import type { CliContext } from "../cli-context.js";
import { table } from "../format.js";
import { describeWaiting, waitingCall, type WaitingCall } from "../../agent/waiting-call.js";

/** A `running` session whose writer lock has no live holder: its process died (derived on read; state.json is not rewritten). */
function interrupted(dir: string, id: string, status: string): boolean {
  return status === "running" && !writerAlive(sessionPaths(dir, id).lock);
}

function resumeHint(id: string): string {
  return `its keel process died mid-turn; continue with keel run --resume ${id}`;
}

function stateDir(ctx: CliContext): string {
  return resolveWorkspace(ctx.globals().cwd, ctx.io.env).stateDir;
}

/** What the table's ORIGIN column says of sessions that are not plainly yours. */
const ORIGIN_NOTES = {
  changed:
    "changed: yours, but its files changed outside keel (a repository wrote into .keel/sessions/ID/, e.g. by git pull): keel sessions show ID says how; keel resumes it only after keel sessions adopt ID",
  foreign: "foreign: not started by keel for you here (it came with the workspace): read it with keel sessions show ID before keel sessions adopt ID",
};

/** `keel sessions list`: each session's origin is `sessionOrigin`'s, as `show` says it (its checkpoint and a bounded window of its log are read, never the whole log). */
export async function sessionsList(ctx: CliContext): Promise<void> {
  const ws = resolveWorkspace(ctx.globals().cwd, ctx.io.env);
  const dir = ws.stateDir;
  const seals = new SessionSeals(ws);
  const listed = listSessions(dir).map((r) => {
    const origin: SessionOrigin = r.createdAt === undefined ? { origin: "foreign" } : sessionOrigin(dir, r.id, r.createdAt, seals);
    const row = { ...r, yours: origin.origin === "yours", ...origin };
    return interrupted(dir, r.id, r.status) ? { ...row, status: "interrupted", hint: resumeHint(r.id) } : row;
  });
  // Yours first, then changed, then foreign (each newest first, as listed): a session a repository committed cannot
  // push yours down, whatever time its files claim. A time after now is flagged in the table.
  const rank = { yours: 0, changed: 1, foreign: 2 } as const;
  const now = Date.now();
  const future = (t: string) => Date.parse(t) > now;
  // `updatedInFuture` tells a script what the table's "(in the future)" tells a reader: this `updatedAt` is no time to go by.
  const rows = listed.sort((a, b) => rank[a.origin] - rank[b.origin]).map((r) => ({ ...r, updatedInFuture: future(r.updatedAt) }));
  const notes = [
    rows.some((r) => r.status === "interrupted") ? "interrupted: its keel process died mid-turn; continue with keel run --resume ID" : "",
    rows.some((r) => r.origin === "changed") ? ORIGIN_NOTES.changed : "",
    rows.some((r) => r.origin === "foreign") ? ORIGIN_NOTES.foreign : "",
    rows.some((r) => r.updatedInFuture)
      ? "in the future: its files claim a later update than now (edited or not written by keel); listed by when it was created"
      : "",
    // What a session's files made keel say (a JSON error quotes the file): shown escaped, on one line.
    ...rows.filter((r) => r.note).map((r) => `${r.id}: ${exactText(r.note!)}`),
  ].filter(Boolean);
  ctx.print({ sessions: rows }, () =>
    rows.length
      ? table(
          ["ID", "ORIGIN", "STATUS", "REASON", "TURNS", "UPDATED", "TITLE"],
          rows.map((r) => [
            r.id,
            r.origin,
            r.status,
            r.reason ?? "",
            String(r.turns),
            r.updatedInFuture ? `${r.updatedAt} (in the future)` : r.updatedAt,
            r.title,
          ]),
        ) + notes.map((n) => `\n${n}`).join("")
      : 'No sessions yet. Start one with keel run "…".',
  );
}

/**
 * `keel sessions adopt ID`: seals a session that came with the workspace (or whose files changed outside
 * keel), after saying what it holds: its checkpoint is rewritten as keel's and its queued messages marked
 * keel's (see session-file-seal.ts), so what it printed is what a resume continues.
 */
export async function sessionsAdopt(ctx: CliContext, id: string): Promise<void> {
  const ws = resolveWorkspace(ctx.globals().cwd, ctx.io.env);
  const meta = await readSessionMeta(ws.stateDir, id);
  const paths = sessionPaths(ws.stateDir, id);
  const seals = new SessionSeals(ws);
  const lock = await acquireSessionLock(paths.lock, id);
  let already: boolean;
  let state: SessionState;
  let queued: { text: string }[];
  try {
    const loaded = await loadSessionState(ws.stateDir, id, seals);
    state = loaded.state;
    already = sessionOrigin(ws.stateDir, id, meta.createdAt, seals, loaded).origin === "yours";
    if (!seals.isYours(id, meta.createdAt)) seals.seal(id, meta.createdAt);
    // A line no repository knows ends what the user vouches for, so a log put in its place later cannot end the same way.
    const log = new JsonlEventSink(paths.events, undefined, true);
    log.emit({ type: "session_adopted", sessionId: id, nonce: randomBytes(16).toString("hex") } as unknown as EventInput);
    log.close();
    await writeSessionSnapshot(ws.stateDir, state, log.position(), seals);
    queued = await adoptQueue(paths.queue, { id, seals });
  } finally {
    lock.release();
  }
  const waiting = await waitingCall(ws.stateDir, state);
  const users = state.messages.filter((m) => m.role === "user").length;
  ctx.print(
    {
      adopted: id,
      alreadyYours: already,
      title: state.title,
      messages: state.messages.length,
      waiting: waiting ? waitingJson(waiting) : null,
      queued: queued.map((q) => q.text),
    },
    () =>
      [
        already ? `Session ${id} was already yours.` : `Session ${id} is now yours: keel run --resume ${id} continues it.`,
        `It holds ${state.messages.length} messages (${users} as yours) — title "${exactText(state.title)}", created ${exactText(String(meta.createdAt))}.`,
        queuedLines(queued),
        // last: no queued text can scroll it away
        waiting ? `It waits for approval of ${describeWaiting(waiting, words)}: keel sessions approve ${id} runs that call.` : "",
      ]
        .filter(Boolean)
        .join("\n"),
  );
}

/** A call as `keel sessions show` and `adopt` print it: the tool, then its arguments as they will run, shown exactly. */
const words = (tool: string, args: string) => `${exactText(tool)} ${exactText(callArgumentsText(args))}`;

/** The waiting call as printed with --json: the session's own call and, when it waits on a sub-agent, the sub-agent's call deciding it runs. */
function waitingJson(waiting: WaitingCall): { callId: string; tool: string; arguments: string; subAgent: WaitingCall["subAgent"] | null } {
  return { callId: waiting.call.id, tool: waiting.call.name, arguments: waiting.call.arguments, subAgent: waiting.subAgent ?? null };
}

/**
 * The queued messages (`keel send`, or a committed queue.json) a resume sends as the user's words, each
 * line shown exactly (`exactText`): tag characters and other invisible text reach the model as words.
 */
function queuedLines(queued: { text: string; from?: string }[]): string {
  if (!queued.length) return "";
  const byTool = queued.filter((q) => q.from === "tool").length;
  return [
    byTool
      ? `queued:   ${queued.length} message(s), sent before the next model call (${byTool} marked "by a tool": queued by a command keel ran for a tool, given to the model as not yours):`
      : `queued:   ${queued.length} message(s), sent as yours before the next model call:`,
    ...queued.map((q) => `  ${q.from === "tool" ? "[by a tool] " : ""}> ${q.text.split("\n").map(exactText).join("\n    ")}`),
  ].join("\n");
}

/** Text from a session's model shown under a heading: every line indented, so none reads as one of keel's own lines. */
function indented(text: string): string {
  return text.replace(/^/gm, "  ");
}

/**
 * `keel sessions show ID`: what the session holds, the call waiting for approval last, shown as it
 * would run (parsed as the agent parses it, see `callArgumentsText`).
 */
export async function sessionsShow(ctx: CliContext, id: string): Promise<void> {
  const dir = stateDir(ctx);
  const meta = await readSessionMeta(dir, id);
  const seals = new SessionSeals(resolveWorkspace(ctx.globals().cwd, ctx.io.env));
  const loaded = await loadSessionState(dir, id, seals);
  const stored = loaded.state;
  const hint = interrupted(dir, id, stored.status) ? resumeHint(id) : undefined;
  const state = hint ? { ...stored, status: "interrupted" as const } : stored;
  const waiting = await waitingCall(dir, stored);
  // yours, but its files changed outside keel (a repository wrote into its folder): resumed only after adopt, as one that came with the workspace
  const origin = sessionOrigin(dir, id, meta.createdAt, seals, loaded);
  const yours = origin.origin === "yours";
  const queued = peekQueue(sessionPaths(dir, id).queue);
  ctx.print(
    {
      session: meta,
      state,
      yours,
      ...origin,
      waiting: waiting ? waitingJson(waiting) : null,
      queued: queued.map((q) => q.text),
      queuedFrom: queued.map((q) => q.from ?? "user"),
      ...(hint ? { hint } : {}),
    },
    () =>
      [
        `session ${id}${meta.parentSessionId ? ` (child of ${meta.parentSessionId}, depth ${meta.depth})` : ""}`,
        `status:   ${state.status}${state.reason && state.reason !== state.status ? ` (${state.reason})` : ""}${hint ? ` — ${hint}` : ""}`,
        `model:    ${exactText(meta.model.kind === "scripted" ? `scripted:${meta.model.file}` : meta.model.name)}`,
        `cwd:      ${exactText(meta.cwd)}`,
        `turns:    ${state.turn}   model calls: ${state.usage.modelCalls}   tool calls: ${state.usage.toolCalls}   tokens in/out: ${state.usage.inputTokens}/${state.usage.outputTokens}`,
        `messages: ${state.messages.length} model-facing (the full record, events included: keel sessions events ${id})`,
        // The model's words, indented: then what a resume sends and runs, last, so no answer can scroll it away or imitate it below.
        state.lastAnswer ? `last answer:\n${indented(state.lastAnswer)}` : "",
        state.error ? `error: ${indented(state.error).slice(2)}` : "",
        queuedLines(queued),
        origin.origin === "yours"
          ? ""
          : origin.origin === "changed"
            ? `origin:   yours, but changed outside keel (${origin.changed}); keel resumes it only after keel sessions adopt ${id}`
            : `origin:   not started by keel for you here (it came with the workspace); keel resumes it only after keel sessions adopt ${id}`,
        waiting ? `waiting:  approval of ${describeWaiting(waiting, words)} — keel sessions approve ${id} | reject ${id}` : "",
      ]
        .filter(Boolean)
        .join("\n"),
  );
}

/** `keel send ID "text"`: appends a durable message to the session's queue; an empty message is a UsageError. */
export async function sendCommand(ctx: CliContext, id: string, text: string): Promise<void> {
  if (!text?.trim()) throw new UsageError(`Give the message to send: keel send ${id} "text".`);
  const dir = stateDir(ctx);
  await readSessionMeta(dir, id);
  // Inside a process keel started for a tool (a model's bash call, a hook), the message is recorded as a tool's, not the user's words.
  const from = ctx.io.env[CALL_MARK] ? ("tool" as const) : undefined;
  const n = await enqueueMessage(sessionPaths(dir, id).queue, text, { id, seals: new SessionSeals(resolveWorkspace(ctx.globals().cwd, ctx.io.env)) }, from);
  ctx.print(
    { sessionId: id, queued: n, ...(from ? { from } : {}) },
    () =>
      `Queued for session ${id} (${n} waiting). It is sent before the session's next model call, or on keel run --resume ${id}.${from ? ` It was sent from a command keel runs for a tool (${CALL_MARK} is set), so the session's model is told it is not the user's words.` : ""}`,
  );
}
