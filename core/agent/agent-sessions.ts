import { randomBytes } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { UsageError, errorMessage } from "../errors.js";
import type { Host } from "../host.js";
import { inToolProcess } from "../trust-hint.js";
import { requireModelSpec } from "../model/model-spec.js";
import type { AgentRunRequest, AgentRunResult, AgentService } from "../services.js";
import { acquireSessionLock } from "../session/session-lock.js";
import { createSessionFiles, initialState, readSessionMeta, readSessionState } from "../session/session-store.js";
import { SessionSeals } from "../session/session-seal.js";
import type { SessionState, SessionStatus } from "../session/session-types.js";
import { ActiveSession } from "./active-session.js";
import { newSessionMeta } from "./session-meta.js";
import type { AgentOutcome, AgentRunOptions } from "./agent-runtime.js";
import { driveSession, type StopReason } from "./agent-loop.js";
import { recoverCrashedTurn } from "./crash-recovery.js";
import { compactHistory } from "./context-economy.js";
import type { ApprovalDecision } from "./run-tool-calls.js";
import type { GuidanceEntry } from "../hooks.js";
import { fireAfterTurn, firePromptHooks, fireUserPromptSubmit } from "./session-hooks.js";
import { hookTextsMessage } from "./tool-guidance.js";
import { decideHint, outcome, outcomeOf, outcomeReader } from "./session-outcome.js";
import { MAX_DELEGATION_DEPTH } from "./tool-menu.js";
import { runPromptSession } from "./run-prompt-session.js";
import { budgetsLeft, countForParent, noteChild } from "./tree-budget.js";
import { loadAgentSettings, openStoredSession, sessionModel } from "./open-session.js";

/**
 * The session machinery behind AgentRuntime (loaded on its first use): start, resume,
 * approve/reject sessions, and run prompts for workflows (AgentService). Holds the sessions this
 * process has open.
 */
export class AgentSessions implements AgentService {
  /** Sessions open in this process, by id (delegate_agent finds its parent here). */
  readonly active = new Map<string, ActiveSession>();
  /** `--model` of this invocation: later sessions without a parent (workflow steps) use it too. */
  private modelFlag?: string;

  constructor(readonly host: Host) {}

  /** Starts a new session and runs its first turn. Throws UsageError when no model is configured, or when it would follow an unusable active directory. */
  async start(opts: AgentRunOptions): Promise<AgentOutcome> {
    const host = this.host;
    const prompt = opts.prompt?.trim();
    if (!prompt) throw new UsageError('Give a prompt: keel run "what to do".');
    // A session that follows the active directory cannot start when that directory is unusable (vanished worktree).
    const pinned = Boolean(opts.worktree) || (opts.cwd !== undefined && opts.cwd !== host.activeDir);
    if (!pinned && host.activeDirError !== undefined) throw new UsageError(host.activeDirError);
    const spec = opts.modelSpec ?? requireModelSpec(host.config, opts.model ?? this.modelFlag, host.env, host.workspace.root);
    const model = sessionModel(host, spec);
    if (opts.model && !this.modelFlag) {
      this.modelFlag = opts.model;
      if (!host.service("agent")) host.provide("agent", this);
    }
    const settings = await loadAgentSettings(host);
    let depth = 0;
    let inherited: SessionState["budgets"];
    if (opts.parentSessionId) {
      depth = (await readSessionMeta(host.workspace.stateDir, opts.parentSessionId)).depth + 1;
      if (depth > MAX_DELEGATION_DEPTH)
        throw new UsageError(`Sub-agents nest at most ${MAX_DELEGATION_DEPTH} deep; session ${opts.parentSessionId} is at the limit.`);
      // a sub-agent gets what its parent has left of each budget, never a budget of its own on top
      const parent = this.active.get(opts.parentSessionId)?.state ?? (await readSessionState(host.workspace.stateDir, opts.parentSessionId));
      inherited = budgetsLeft(settings.budgets, parent);
    }
    const meta = newSessionMeta(host, opts, spec, depth, pinned);
    host.ensureStateDir("sessions");
    const paths = await createSessionFiles(host.workspace.stateDir, meta);
    const unsealed = new SessionSeals(host.workspace).sealNew(meta.id, meta.createdAt);
    if (unsealed !== undefined) host.options.notice?.(`keel: warning: ${unsealed}`);
    const lock = await acquireSessionLock(paths.lock, meta.id);
    const state = initialState(meta.id, prompt.split("\n")[0]!.slice(0, 80));
    state.toolSubset = opts.tools;
    state.yes = opts.yes || undefined;
    if (inherited && Object.keys(inherited).length) state.budgets = inherited;
    const s = new ActiveSession(host, meta, state, paths, lock, model, settings, opts, { snapshotOffset: 0, snapshotBytes: 0 });
    await noteChild(this.active, opts.parentSessionId, meta.id);
    s.emit("session_start", {
      depth,
      parentSessionId: opts.parentSessionId,
      model: model.id,
      cwd: meta.cwd,
      agentType: opts.agentType?.name,
      nonce: randomBytes(16).toString("hex"),
    });
    await s.checkpoint();
    await this.fire("sessionStart", s);
    return countForParent(this.active, opts.parentSessionId, await this.runTurn(s, { prompt, resume: false }));
  }

  /** Resumes a session (crash recovery first if its last process died mid-turn), optionally with a new prompt. Refuses (UsageError) a pinned directory outside the workspace. */
  async resume(id: string, opts: AgentRunOptions): Promise<AgentOutcome> {
    const s = await this.open(id, opts);
    const prompt = opts.prompt?.trim();
    const waiting = () => {
      const call = s.state.pending?.calls.find((c) => c.status === "awaiting_approval");
      return new UsageError(
        inToolProcess(this.host.env)
          ? `Session ${id} is waiting for approval of ${call?.name ?? "a tool call"}. ${decideHint(id, "tool-process")}`
          : `Session ${id} is waiting for approval of ${call?.name ?? "a tool call"}: run \`keel sessions approve ${id}\` or \`keel sessions reject ${id}\` first.`,
      );
    };
    try {
      if (s.state.status === "awaiting_approval") throw waiting();
      let recovered = false;
      // a dead writer (status still running), or a turn that stopped with tool calls unanswered
      if (s.state.status === "running" || s.state.pending) {
        await recoverCrashedTurn(s);
        recovered = true;
        // it died while a person was asked: that call waits again (crash-recovery.ts)
        if ((s.state.status as SessionStatus) === "awaiting_approval") throw waiting();
      }
      const last = s.state.messages[s.state.messages.length - 1];
      const queued = existsSync(s.paths.queue) && statSync(s.paths.queue).size > 3;
      if (!prompt && !recovered && !queued && last?.role === "assistant" && !last.toolCalls?.length)
        throw new UsageError(`Session ${id} has nothing pending: continue it with a prompt, e.g. keel run --resume ${id} "next step".`);
    } catch (error) {
      s.close();
      this.active.delete(id);
      throw error;
    }
    await this.fire("sessionStart", s, "resume");
    return this.runTurn(s, { prompt, resume: true });
  }

  /**
   * Approves or rejects the call a session is waiting on, then continues the turn as a resume does
   * (`beforePrompt`/`onResume` fire). A sub-agent's parent waiting on it through `delegate_agent`
   * then continues too (and its parent, …): the outcome is that of the top-most session continued.
   */
  async decide(id: string, decision: ApprovalDecision, opts: AgentRunOptions = {}): Promise<AgentOutcome> {
    let out = await this.decideOne(id, decision, opts);
    let meta = await readSessionMeta(this.host.workspace.stateDir, id);
    while (out.reason !== "awaiting_approval" && meta.parentSessionId) {
      const parent = await readSessionState(this.host.workspace.stateDir, meta.parentSessionId);
      const waits = parent.pending?.calls.some((c) => c.status === "awaiting_approval" && c.child === meta.id);
      if (parent.status !== "awaiting_approval" || !waits) break;
      out = await this.decideOne(meta.parentSessionId, "approve", opts);
      meta = await readSessionMeta(this.host.workspace.stateDir, meta.parentSessionId);
    }
    return out;
  }

  /**
   * For `delegate_agent` continuing a paused child: decides the child's waiting call and runs it on
   * (when it still waits), or returns how it ended (when it was approved directly since).
   */
  async continueChild(id: string, decision: ApprovalDecision, opts: AgentRunOptions): Promise<AgentOutcome> {
    const state = await readSessionState(this.host.workspace.stateDir, id);
    const parentId = (await readSessionMeta(this.host.workspace.stateDir, id)).parentSessionId;
    if (state.status === "awaiting_approval") return countForParent(this.active, parentId, await this.decideOne(id, decision, opts));
    const reason = (state.reason ?? "error") as StopReason;
    return countForParent(this.active, parentId, outcomeOf(id, state, reason, undefined, undefined, outcomeReader({ host: this.host, options: opts }, reason)));
  }

  private async decideOne(id: string, decision: ApprovalDecision, opts: AgentRunOptions): Promise<AgentOutcome> {
    const s = await this.open(id, opts);
    if (s.state.status !== "awaiting_approval") {
      s.close();
      this.active.delete(id);
      // holding the lock means no live process runs it: `running` is a dead writer's leftover
      if (s.state.status === "running")
        throw new UsageError(
          `Session ${id} was interrupted (its keel process${s.state.pid ? ` ${s.state.pid}` : ""} died mid-turn); nothing awaits approval. Recover it with \`keel run --resume ${id}\`.`,
        );
      throw new UsageError(`Session ${id} is not waiting for an approval (status: ${s.state.status}).`);
    }
    return this.runTurn(s, { resume: true, decision });
  }

  /** Compacts a session's history now (`/compact` in `keel chat`); returns how many messages the summary replaced. */
  async compact(id: string, opts: AgentRunOptions = {}): Promise<number> {
    const s = await this.open(id, opts);
    try {
      const removed = await compactHistory(s, "manual");
      await s.save(true);
      return removed;
    } finally {
      this.active.delete(id);
      s.close();
    }
  }

  /**
   * AgentService: runs one prompt in a new session (workflow `prompt` steps), a child of the calling
   * session when there is one, with no tool that session may not use. Never throws: failures come back with `ok: false`.
   */
  runPrompt(request: AgentRunRequest): Promise<AgentRunResult> {
    return runPromptSession(this, this.host, request);
  }

  /** Per-session plugin state (survives resume), for sessions open in this process. */
  pluginState(sessionId: string): Record<string, unknown> | undefined {
    return this.active.get(sessionId)?.state.pluginState;
  }

  private async open(id: string, opts: AgentRunOptions): Promise<ActiveSession> {
    const s = await openStoredSession(this.host, id, opts);
    this.active.set(id, s);
    return s;
  }

  private async runTurn(s: ActiveSession, turn: { prompt?: string; resume: boolean; decision?: ApprovalDecision }): Promise<AgentOutcome> {
    this.active.set(s.id, s);
    let reason: StopReason;
    let refused: string | undefined;
    try {
      s.state.status = "running";
      s.state.pid = process.pid;
      s.state.error = undefined;
      if (!turn.decision) {
        await firePromptHooks(s, turn.resume);
        s.state.turnSteps = 0;
        // `--max-steps` caps this turn only; an approval continues the turn with its cap
        s.state.maxSteps = s.options.maxSteps;
        if (turn.prompt) refused = await fireUserPromptSubmit(s, turn.prompt);
        if (turn.prompt && refused === undefined) {
          s.state.turn++;
          s.addMessage({ role: "user", kind: "prompt", content: turn.prompt });
          s.options.onPromptAdded?.(s.id);
          s.emit("turn_start", { turn: s.state.turn, resume: turn.resume });
        }
      } else await firePromptHooks(s, true, true);
      await s.save();
      if (refused !== undefined) {
        reason = "error";
        s.state.error = refused;
        s.emit("error", { message: refused });
      } else reason = await driveSession(s, turn.decision);
    } catch (error) {
      reason = "error";
      s.state.error = errorMessage(error);
      s.emit("error", { message: s.state.error });
    }
    try {
      if (reason !== "awaiting_approval") {
        s.state.status = "idle";
        s.state.reason = reason;
        s.emit("turn_end", { turn: s.state.turn, reason });
        await fireAfterTurn(s, reason);
        await this.fire("sessionEnd", s);
      }
      s.state.pid = undefined;
      await s.save(true);
    } finally {
      this.active.delete(s.id);
      s.close();
    }
    return outcome(s, reason);
  }

  private async fire(hook: "sessionStart" | "sessionEnd", s: ActiveSession, source: "startup" | "resume" = "startup"): Promise<void> {
    const ctx = { host: this.host, sessionId: s.id, cwd: s.cwd, events: s.events, subagent: s.meta.depth > 0, source, context: [] as GuidanceEntry[] };
    try {
      await this.host.hooks[hook].promise(ctx);
    } catch (error) {
      s.emit("hook_error", { hook, message: errorMessage(error) });
    }
    const text = hookTextsMessage("Session start hooks:", ctx.context);
    if (hook === "sessionStart" && text) s.addMessage({ role: "user", kind: "hooks", content: text });
  }
}
