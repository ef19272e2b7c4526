import type { ModelToolSpec } from "../model/model-types.js";
import { estimateTools } from "../model/token-estimate.js";
import type { ActiveSession } from "./active-session.js";

/** Name of the tool-search tool. */
export const TOOL_SEARCH = "tool_search";
/** Name of the delegation tool. */
export const DELEGATE_AGENT = "delegate_agent";
/** Deepest sub-agent nesting: a session at this depth cannot delegate. */
export const MAX_DELEGATION_DEPTH = 3;

/** The tools offered in one request, and what was deferred. */
export interface ToolMenu {
  tools: ModelToolSpec[];
  /** MCP tools hidden behind tool_search (not yet discovered). */
  deferred: Set<string>;
  /** Estimated tokens of the offered tools, and of every tool without deferral. */
  toolTokens: number;
  fullToolTokens: number;
  /** The pipeline's visibility check for this session. */
  isVisible: (name: string) => boolean;
}

/**
 * Computes the session's tool menu: registry listing minus blocked tools, the session's
 * subset, and delegate_agent at the depth limit. When the definitions exceed
 * `toolSearchShare` of the window, undiscovered MCP tools are deferred behind tool_search.
 */
export function toolMenu(s: ActiveSession): ToolMenu {
  const host = s.host;
  const subset = s.state.toolSubset ? new Set(s.state.toolSubset) : undefined;
  const allowed = (name: string) => {
    if (name === DELEGATE_AGENT && s.meta.depth >= MAX_DELEGATION_DEPTH) return false;
    return !subset || subset.has(name) || name === TOOL_SEARCH;
  };
  const listing = host.registry.listing().filter((t) => allowed(t.name));
  const shown = listing.filter((t) => t.name !== TOOL_SEARCH && !isBlocked(s, t.name));
  const spec = (t: (typeof listing)[number]): ModelToolSpec => ({ name: t.name, description: t.description, inputSchema: t.inputSchema });
  const full = shown.map(spec);
  const fullToolTokens = estimateTools(full);
  const discovered = new Set(s.state.discoveredTools);
  const deferred = new Set<string>();
  const search = listing.find((t) => t.name === TOOL_SEARCH);
  if (search && fullToolTokens > s.settings.toolSearchShare * s.model.profile.contextWindow) {
    for (const t of shown) if (t.source.kind === "mcp" && !discovered.has(t.name)) deferred.add(t.name);
  }
  const tools = deferred.size ? [...full.filter((t) => !deferred.has(t.name)), spec(search!)] : full;
  return {
    tools,
    deferred,
    toolTokens: deferred.size ? estimateTools(tools) : fullToolTokens,
    fullToolTokens,
    isVisible: (name) => allowed(name) && !deferred.has(name) && (name !== TOOL_SEARCH || deferred.size > 0 || discovered.size > 0),
  };
}

function isBlocked(s: ActiveSession, name: string): boolean {
  const resolved = s.host.registry.resolve(name);
  if (!resolved) return false;
  try {
    return Boolean(s.host.hooks.toolBlocked.call({ host: s.host, calledAs: name, tool: resolved.tool })?.block);
  } catch {
    return true;
  }
}
