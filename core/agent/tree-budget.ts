import type { SessionState, SessionUsage } from "../session/session-types.js";
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
