import type { Host } from "../host.js";
import type { ModelSpec } from "../model/model-spec.js";
import type { AgentRunRequest, AgentRunResult, AgentService } from "../services.js";
import type { SessionAgentType, SessionUsage } from "../session/session-types.js";
import type { ActiveSession, SessionRunOptions } from "./active-session.js";
import type { StopReason } from "./agent-loop.js";
import type { AgentSessions } from "./agent-sessions.js";
import type { ApprovalDecision } from "./run-tool-calls.js";
import type { CountedUsage } from "./tree-budget.js";
import type { SubAgentCall } from "./waiting-call.js";

/** Options of `start` / `resume` / `decide`. */
export interface AgentRunOptions extends SessionRunOptions {
  prompt?: string;
  /** Id for a new session (default: generated). */
  sessionId?: string;
  /** Directory the session's tools stay in (pinned); default, or equal to the host's active directory: they follow the active directory. */
  cwd?: string;
  /** Restrict visible tools to these names. */
  tools?: string[];
  parentSessionId?: string;
  /** `--model`: overrides the configured (or, on resume, the frozen) model. */
  model?: string;
  /** An already resolved model (sub-agents and workflow steps inherit their parent's). */
  modelSpec?: ModelSpec;
  /** Managed worktree the session runs in. */
  worktree?: { name: string; path: string; branch: string };
  /** The sub-agent type a new session runs (recorded in session.json and the `session_start` event). */
  agentType?: SessionAgentType;
}

/** What a run returns to the CLI, workflows and delegate_agent. */
export interface AgentOutcome {
  ok: boolean;
  sessionId: string;
  status: string;
  reason: StopReason | "interrupted";
  /** The model's last text (its final answer when `reason` is `answer`); the error message when `reason` is `error`. */
  text: string;
  /** keel's status message when the turn did not end with an answer (what awaits approval, how to continue). */
  message?: string;
  usage: SessionUsage;
  /** `usage` together with that of the session's sub-agents (what budgets count). */
  treeUsage: CountedUsage;
  /** The call the session waits on; `subAgent`: the sub-agent's call deciding it runs, when it is a `delegate_agent` waiting on one. */
  pendingApproval?: { callId: string; tool: string; arguments: string; subAgent?: SubAgentCall };
}

/**
 * The agent loop's entry points for one host: start, resume, approve/reject sessions, and run
 * prompts for workflows (AgentService). The session machinery (sessions, models, the loop) is
 * loaded on the first run: a command that runs no session (`keel tools`, `keel call`) never loads it.
 */
export class AgentRuntime implements AgentService {
  private sessions?: AgentSessions;
  private loading?: Promise<AgentSessions>;

  constructor(readonly host: Host) {}

  /** Sessions open in this process, by id (delegate_agent finds its parent here); empty until the first run. */
  get active(): ReadonlyMap<string, ActiveSession> {
    return this.sessions?.active ?? new Map();
  }

  /** Starts a new session and runs its first turn. Throws UsageError when no model is configured, or when it would follow an unusable active directory. */
  async start(opts: AgentRunOptions): Promise<AgentOutcome> {
    return (await this.load()).start(opts);
  }

  /** Resumes a session (crash recovery first if its last process died mid-turn), optionally with a new prompt. Refuses (UsageError) a pinned directory outside the workspace. */
  async resume(id: string, opts: AgentRunOptions): Promise<AgentOutcome> {
    return (await this.load()).resume(id, opts);
  }

  /** Approves or rejects the call a session is waiting on and continues the turn as a resume does; parents waiting on it through `delegate_agent` continue too. */
  async decide(id: string, decision: ApprovalDecision, opts: AgentRunOptions = {}): Promise<AgentOutcome> {
    return (await this.load()).decide(id, decision, opts);
  }

  /** For `delegate_agent` continuing a paused child: decides the child's waiting call and runs it on, or returns how it ended. */
  async continueChild(id: string, decision: ApprovalDecision, opts: AgentRunOptions): Promise<AgentOutcome> {
    return (await this.load()).continueChild(id, decision, opts);
  }

  /** Compacts a session's history now (`/compact`): older messages become a continuation summary; returns how many it replaced. */
  async compact(id: string, opts: AgentRunOptions = {}): Promise<number> {
    return (await this.load()).compact(id, opts);
  }

  /** AgentService: runs one prompt in a new session (workflow `prompt` steps). Never throws: failures come back with `ok: false`. */
  async runPrompt(request: AgentRunRequest): Promise<AgentRunResult> {
    return (await this.load()).runPrompt(request);
  }

  /** Per-session plugin state (survives resume), for sessions open in this process. */
  pluginState(sessionId: string): Record<string, unknown> | undefined {
    return this.sessions?.pluginState(sessionId);
  }

  /** The session machinery, imported and created once. */
  private load(): Promise<AgentSessions> {
    this.loading ??= import("./agent-sessions.js").then(({ AgentSessions }) => (this.sessions = new AgentSessions(this.host)));
    return this.loading;
  }
}
