import { exactText, terminalText } from "../terminal-text.js";
import { callArgumentsText, visibleJson } from "../../visible-json.js";
import { printedJson } from "../printed-json.js";
import { closeSync, lstatSync, openSync, readSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { randomBytes } from "../../lazy-crypto.js";
import { JsonlEventSink, readEvents } from "../../events.js";
import type { EventInput } from "../../types.js";
import { ownReadFlags } from "../../state/own-path.js";
import { adoptQueue, enqueueMessage, peekQueue } from "../../session/message-queue.js";
import { acquireSessionLock, isAlive, lockOwner, writerAlive } from "../../session/session-lock.js";
import { UsageError } from "../../errors.js";
import { sessionPaths } from "../../session/session-paths.js";
import { SessionSeals } from "../../session/session-seal.js";
import { changedOutsideKeel, listSessions, loadSessionState, readSessionMeta, writeSessionSnapshot } from "../../session/session-store.js";
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

/** `keel sessions list`. */
export async function sessionsList(ctx: CliContext): Promise<void> {
  const ws = resolveWorkspace(ctx.globals().cwd, ctx.io.env);
  const dir = ws.stateDir;
  const seals = new SessionSeals(ws);
  const rows = listSessions(dir).map((r) => {
    const row = { ...r, yours: r.createdAt !== undefined && seals.isYours(r.id, r.createdAt) };
    return interrupted(dir, r.id, r.status) ? { ...row, status: "interrupted", hint: resumeHint(r.id) } : row;
  });
  const notes = [
    rows.some((r) => r.status === "interrupted") ? "interrupted: its keel process died mid-turn; continue with keel run --resume ID" : "",
    rows.some((r) => !r.yours)
      ? "*: not started by keel for you here (it came with the workspace): read it with keel sessions show ID before keel sessions adopt ID"
      : "",
  ].filter(Boolean);
  ctx.print({ sessions: rows }, () =>
    rows.length
      ? table(
          ["ID", "STATUS", "REASON", "TURNS", "UPDATED", "TITLE"],
          rows.map((r) => [r.yours ? r.id : `${r.id} *`, r.status, r.reason ?? "", String(r.turns), r.updatedAt, r.title]),
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
  const lock = acquireSessionLock(paths.lock, id);
  let already: boolean;
  let state: SessionState;
  let queued: { text: string }[];
  try {
    const loaded = await loadSessionState(ws.stateDir, id, seals);
    state = loaded.state;
    already = seals.isYours(id, meta.createdAt) && changedOutsideKeel(loaded, ws.stateDir, id, seals) === undefined;
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
function queuedLines(queued: { text: string }[]): string {
  if (!queued.length) return "";
  return [
    `queued:   ${queued.length} message(s), sent as yours before the next model call:`,
    ...queued.map((q) => `  > ${q.text.split("\n").map(exactText).join("\n    ")}`),
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
  const sealed = seals.isYours(id, meta.createdAt);
  // yours, but its files changed outside keel (a repository wrote into its folder): resumed only after adopt, as one that came with the workspace
  const changed = sealed ? changedOutsideKeel(loaded, dir, id, seals) : undefined;
  const yours = sealed && changed === undefined;
  const queued = peekQueue(sessionPaths(dir, id).queue);
  ctx.print({ session: meta, state, yours, waiting: waiting ? waitingJson(waiting) : null, queued: queued.map((q) => q.text), ...(hint ? { hint } : {}) }, () =>
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
      yours
        ? ""
        : changed
          ? `origin:   yours, but changed outside keel (${changed}); keel resumes it only after keel sessions adopt ${id}`
          : `origin:   not started by keel for you here (it came with the workspace); keel resumes it only after keel sessions adopt ${id}`,
      waiting ? `waiting:  approval of ${describeWaiting(waiting, words)} — keel sessions approve ${id} | reject ${id}` : "",
    ]
      .filter(Boolean)
      .join("\n"),
  );
}

/** `keel sessions events ID [--follow]`: JSONL with --json, a compact line per event otherwise (invisible characters in it shown as `\u` escapes, see `visibleJson`). */
export async function sessionsEvents(ctx: CliContext, id: string, opts: { follow?: boolean }): Promise<void> {
  const dir = stateDir(ctx);
  await readSessionMeta(dir, id);
  const paths = sessionPaths(dir, id);
  const json = ctx.globals().json;
  const print = (e: object) => {
    if (json) return ctx.io.stdout.write(printedJson(e, ctx.io.env) + "\n");
    const { ts, type, sessionId: _s, ...rest } = e as { ts?: unknown; type?: unknown; sessionId?: unknown };
    ctx.io.stdout.write(terminalText(`${new Date(Number(ts)).toISOString().slice(11, 23)} ${String(type).padEnd(18)} ${visibleJson(rest)}`) + "\n");
  };
  if (!opts.follow) {
    for (const e of readEvents(paths.events)) print(e);
    return;
  }
  let offset = 0;
  let rest = "";
  const drain = () => {
    // keel's own log only: a link or FIFO planted at it is not read (see ownReadFlags)
    const st = lstatSync(paths.events, { throwIfNoEntry: false });
    if (!st?.isFile()) return;
    const size = st.size;
    if (size <= offset) return;
    const fd = openSync(paths.events, ownReadFlags(paths.events));
    const buf = Buffer.alloc(size - offset);
    readSync(fd, buf, 0, buf.length, offset);
    closeSync(fd);
    offset = size;
    const lines = (rest + buf.toString("utf8")).split("\n");
    rest = lines.pop() ?? "";
    for (const line of lines) {
      try {
        if (line) print(JSON.parse(line));
      } catch {
        // torn line: skipped
      }
    }
  };
  for (;;) {
    drain();
    const owner = lockOwner(paths.lock);
    if (owner === undefined || !isAlive(owner) || ctx.signal.aborted) break;
    await sleep(150, undefined, { signal: ctx.signal }).catch(() => undefined);
  }
  drain();
}

/** `keel send ID "text"`: appends a durable message to the session's queue; an empty message is a UsageError. */
export async function sendCommand(ctx: CliContext, id: string, text: string): Promise<void> {
  if (!text?.trim()) throw new UsageError(`Give the message to send: keel send ${id} "text".`);
  const dir = stateDir(ctx);
  await readSessionMeta(dir, id);
  const n = await enqueueMessage(sessionPaths(dir, id).queue, text, { id, seals: new SessionSeals(resolveWorkspace(ctx.globals().cwd, ctx.io.env)) });
  ctx.print(
    { sessionId: id, queued: n },
    () => `Queued for session ${id} (${n} waiting). It is sent before the session's next model call, or on keel run --resume ${id}.`,
  );
}
