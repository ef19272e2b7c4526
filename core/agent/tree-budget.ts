import type { SessionState, SessionUsage } from "../session/session-types.js";
import type { ActiveSession } from "./active-session.js";
import type { AgentOutcome } from "./agent-runtime.js";
import type { AgentSettings } from "./agent-settings.js";

/** `agent.budgets`: the most a session (with its sub-agents) may use. */
export type AgentBudgets = AgentSettings["budgets"];

/** What budgets count: model calls, tool calls and tokens. */
export type CountedUsage = Pick<SessionUsage, "modelCalls" | "toolCalls" | "inputTokens" | "outputTokens">;

const KEYS = ["maxModelCalls", "maxToolCalls", "maxTokens"] as const;
type BudgetKey = (typeof KEYS)[number];

/**
 * What a session used together with its sub-agents (`delegate_agent` children and workflow prompt
 * steps run as its children): its own usage plus the last total each child reported. A child's
 * entry is its own tree total, so grandchildren count once. Negative or missing numbers (a state
 * file keel did not write) count as 0: a committed session cannot buy itself budget.
 */
export function treeUsage(state: Pick<SessionState, "usage" | "childUsage">): CountedUsage {
  const total: CountedUsage = { modelCalls: 0, toolCalls: 0, inputTokens: 0, outputTokens: 0 };
  for (const u of [state.usage, ...Object.values(state.childUsage ?? {})]) {
    for (const key of Object.keys(total) as (keyof CountedUsage)[]) {
      const n = (u as Partial<CountedUsage> | undefined)?.[key];
      if (typeof n === "number" && n > 0) total[key] += n;
    }
  }
  return total;
}

function used(u: CountedUsage, key: BudgetKey): number {
  return key === "maxModelCalls" ? u.modelCalls : key === "maxToolCalls" ? u.toolCalls : u.inputTokens + u.outputTokens;
}

/**
 * The budget in force for `key`: the configured one, or what the parent session had left when this
 * sub-agent started (`state.budgets`), whichever is lower; `inherited` when the parent's is.
 */
function limitOf(settings: AgentBudgets, state: Pick<SessionState, "budgets">, key: BudgetKey): { limit: number; inherited: boolean } | undefined {
  const own = settings[key];
  const left = state.budgets?.[key];
  const parent = typeof left === "number" && left >= 0 ? left : undefined;
  if (parent !== undefined && (own === undefined || parent <= own)) return { limit: parent, inherited: true };
  return own === undefined ? undefined : { limit: own, inherited: false };
}

/** The first budget (of `keys`; default all) the session tree has used up (its key, limit and whether the parent's remainder set it), or undefined. */
export function exhaustedBudget(
  settings: AgentBudgets,
  state: Pick<SessionState, "usage" | "childUsage" | "budgets">,
  keys: readonly BudgetKey[] = KEYS,
): { key: BudgetKey; limit: number; inherited: boolean } | undefined {
  const total = treeUsage(state);
  for (const key of keys) {
    const l = limitOf(settings, state, key);
    if (l && used(total, key) >= l.limit) return { key, ...l };
  }
  return undefined;
}

/**
 * What a session has left of each budget in force, for a sub-agent it starts: the child stops when
 * it has used that much, so delegating (or fanning out over many children) never lifts a budget.
 */
export function budgetsLeft(settings: AgentBudgets, state: Pick<SessionState, "usage" | "childUsage" | "budgets">): AgentBudgets {
  const total = treeUsage(state);
  const left: AgentBudgets = {};
  for (const key of KEYS) {
    const l = limitOf(settings, state, key);
    if (l) left[key] = Math.max(0, l.limit - used(total, key));
  }
  return left;
}

/**
 * A parent's `childUsage` brought up to what each child's own log says it used (its tree total), field by field,
 * never lower: a child the parent's process died in (killed mid-run) counts with what it had used then. A child
 * whose state cannot be read keeps its recorded figures. Never throws.
 */
export async function childUsageOnOpen(stateDir: string, recorded: NonNullable<SessionState["childUsage"]>): Promise<NonNullable<SessionState["childUsage"]>> {
  const { readSessionState } = await import("../session/session-store.js");
  const out: NonNullable<SessionState["childUsage"]> = {};
  for (const [id, before] of Object.entries(recorded)) {
    const now = await readSessionState(stateDir, id).then(treeUsage, () => undefined);
    const was = treeUsage({ usage: before as SessionUsage });
    out[id] = now
      ? {
          modelCalls: Math.max(was.modelCalls, now.modelCalls),
          toolCalls: Math.max(was.toolCalls, now.toolCalls),
          inputTokens: Math.max(was.inputTokens, now.inputTokens),
          outputTokens: Math.max(was.outputTokens, now.outputTokens),
        }
      : was;
  }
  return out;
}

/**
 * Records a new sub-agent in its parent's log before it runs (with nothing used yet), when the parent runs in this
 * process: if the process dies while the child runs, the parent's next open reads what the child used from the
 * child's own log (see `childUsageOnOpen`).
 */
export async function noteChild(active: ReadonlyMap<string, ActiveSession>, parentId: string | undefined, childId: string): Promise<void> {
  const parent = parentId ? active.get(parentId) : undefined;
  if (!parent) return;
  parent.state.childUsage = { ...parent.state.childUsage, [childId]: { modelCalls: 0, toolCalls: 0, inputTokens: 0, outputTokens: 0 } };
  await parent.save();
}

/**
 * Records what a sub-agent has used so far (its tree total) in its parent's state, when the parent runs in this
 * process (it is what started or continues the child): the parent's budgets count it. Returns `out`.
 */
export function countForParent(active: ReadonlyMap<string, ActiveSession>, parentId: string | undefined, out: AgentOutcome): AgentOutcome {
  const parent = parentId ? active.get(parentId) : undefined;
  if (parent) parent.state.childUsage = { ...parent.state.childUsage, [out.sessionId]: out.treeUsage };
  return out;
}
