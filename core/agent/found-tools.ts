import type { ActiveSession } from "./active-session.js";
import { isDeferrable, type ToolMenu } from "./tool-menu.js";

/** The found set after a search: its new order (least recently found or used first), what was added and what was dropped. */
export interface FoundBound {
  order: string[];
  added: string[];
  dropped: string[];
}

/** What boundFoundTools decides on. */
export interface FoundBoundInput {
  /** The found set, least recently found or used first. */
  order: readonly string[];
  /** What this search returned (kept, and now the most recent). */
  found: readonly string[];
  /** Tools never dropped: called in this turn or in the response being run. */
  keep: ReadonlySet<string>;
  /** Estimated tokens of a tool's definition (0 for a tool no longer registered). */
  cost: (name: string) => number;
  /** Most tokens the found set may take. */
  budget: number;
}

/**
 * Most names the found set keeps. A tool no longer registered (its server renamed or removed it, or is
 * down) costs nothing against the budget and stays, so it can be called when it is back; without this
 * bound a server renaming its tools between searches would grow the set, and the session file, by up
 * to a search's limit at every search.
 */
export const MAX_FOUND_TOOLS = 200;

/**
 * Adds a search's tools to the found set and drops the least recently found or used ones until the
 * set fits `budget` and holds at most MAX_FOUND_TOOLS names. Never drops what this search found or
 * what `keep` holds, so the set may stay over the budget by those alone. A dropped tool is deferred
 * again and can be found again.
 */
export function boundFoundTools(input: FoundBoundInput): FoundBound {
  const found = [...new Set(input.found)];
  const fresh = new Set(found);
  const before = new Set(input.order);
  const order = [...input.order.filter((n) => !fresh.has(n)), ...found];
  let total = order.reduce((sum, n) => sum + input.cost(n), 0);
  const dropped = new Set<string>();
  for (const name of order) {
    if (total <= input.budget && order.length - dropped.size <= MAX_FOUND_TOOLS) break;
    if (fresh.has(name) || input.keep.has(name)) continue;
    dropped.add(name);
    total -= input.cost(name);
  }
  return { order: order.filter((n) => !dropped.has(n)), added: found.filter((n) => !before.has(n)), dropped: [...dropped] };
}

/**
 * Applies a tool_search result to the session's found set (`state.discoveredTools`, persisted with
 * the state) within the found-tool budget: what the deferral budget (`agent.toolSearchShare` of the
 * context window) leaves after the tools always offered (built-ins, runtimes, tool_search); no bound
 * when nothing is deferred (every tool fits the budget anyway). Tools called in this turn and the
 * calls of the response being run are kept.
 */
export function admitFoundTools(s: ActiveSession, menu: ToolMenu, found: readonly string[]): FoundBound & { budget: number } {
  const listing = new Map(s.host.registry.listing().map((t) => [t.name, t]));
  const limit = s.settings.toolSearchShare * s.model.profile.contextWindow;
  const always = menu.tools.filter((t) => {
    const source = listing.get(t.name)?.source;
    return !source || !isDeferrable(source);
  });
  const budget = menu.fullToolTokens <= limit ? Infinity : Math.max(0, limit - s.estimator.tools(always));
  const cost = (name: string) => {
    const t = listing.get(name);
    return t ? s.estimator.tools([{ name: t.name, description: t.description, inputSchema: t.inputSchema }]) : 0;
  };
  const result = boundFoundTools({ order: s.state.discoveredTools, found, keep: calledThisTurn(s), cost, budget });
  s.state.discoveredTools = result.order;
  return { ...result, budget };
}

/** A found tool was called: it becomes the most recently used (dropped last). */
export function touchFoundTool(s: ActiveSession, name: string): void {
  const list = s.state.discoveredTools;
  const i = list.indexOf(name);
  if (i < 0 || i === list.length - 1) return;
  s.state.discoveredTools = [...list.slice(0, i), ...list.slice(i + 1), name];
}

/** What the model is told when earlier found tools were dropped. */
export function droppedNote(dropped: readonly string[]): string {
  return `\n\nTo keep the tool list within its budget (agent.toolSearchShare of the context window), these tools found by earlier searches are no longer loaded: ${dropped.join(", ")}. Search again to use one of them.`;
}

/** Tools called since this turn's prompt, and the calls of the response being run. */
function calledThisTurn(s: ActiveSession): Set<string> {
  const names = new Set((s.state.pending?.calls ?? []).map((c) => c.name));
  const messages = s.state.messages;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "user" && m.kind === "prompt") break;
    if (m.role === "assistant") for (const c of m.toolCalls ?? []) names.add(c.name);
  }
  return names;
}
