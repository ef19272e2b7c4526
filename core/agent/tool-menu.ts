import type { ModelToolSpec } from "../model/model-types.js";
import type { Host } from "../host.js";
import type { ToolListing } from "../registry.js";
import type { ToolSource } from "../types.js";
import type { TokenEstimator } from "../model/token-estimate.js";
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
  /** Deferrable tools (see isDeferrable) hidden behind tool_search (not yet discovered). */
  deferred: Set<string>;
  /** Estimated tokens of the offered tools, and of every tool without deferral. */
  toolTokens: number;
  fullToolTokens: number;
  /** The pipeline's visibility check for this session. */
  isVisible: (name: string) => boolean;
}

/** What a tool menu depends on: a session has all of it; `keel context` builds it for a session about to start. */
export interface MenuInput {
  host: Host;
  /** The session's tool subset (`--tools`, a sub-agent's list), if any. */
  toolSubset?: readonly string[];
  depth: number;
  toolSearchShare: number;
  contextWindow: number;
  discoveredTools: readonly string[];
  estimator: TokenEstimator;
}

/**
 * Computes the session's tool menu: registry listing minus blocked tools, the session's
 * subset, and delegate_agent at the depth limit. When the definitions exceed
 * `toolSearchShare` of the window, undiscovered deferrable tools (MCP tools, plugin virtual tools,
 * aliases and code-plugin tools: see isDeferrable) are deferred behind tool_search.
 */
export function toolMenu(s: ActiveSession): ToolMenu {
  return buildToolMenu({
    host: s.host,
    toolSubset: s.state.toolSubset,
    depth: s.meta.depth,
    toolSearchShare: s.settings.toolSearchShare,
    contextWindow: s.model.profile.contextWindow,
    discoveredTools: s.state.discoveredTools,
    estimator: s.estimator,
  });
}

/** The tool menu for `input` (see toolMenu). */
export function buildToolMenu(input: MenuInput): ToolMenu {
  const host = input.host;
  const subset = input.toolSubset ? new Set(input.toolSubset) : undefined;
  const allowed = (name: string) => {
    if (name === DELEGATE_AGENT && input.depth >= MAX_DELEGATION_DEPTH) return false;
    return !subset || subset.has(name) || name === TOOL_SEARCH;
  };
  const listing = host.registry.listing().filter((t) => allowed(t.name));
  const shown = listing.filter((t) => t.name !== TOOL_SEARCH && !isBlocked(host, t.name));
  const spec = (t: (typeof listing)[number]): ModelToolSpec => ({ name: t.name, description: t.description, inputSchema: t.inputSchema });
  const full = shown.map(spec);
  const fullToolTokens = input.estimator.tools(full);
  const discovered = new Set(input.discoveredTools);
  const deferred = new Set<string>();
  const search = listing.find((t) => t.name === TOOL_SEARCH);
  if (search && fullToolTokens > input.toolSearchShare * input.contextWindow) {
    for (const t of shown) if (isDeferrable(t.source) && !discovered.has(t.name)) deferred.add(t.name);
  }
  const tools = deferred.size ? [...full.filter((t) => !deferred.has(t.name)), spec(search!)] : full;
  return {
    tools,
    deferred,
    toolTokens: deferred.size ? input.estimator.tools(tools) : fullToolTokens,
    fullToolTokens,
    isVisible: (name) => allowed(name) && !deferred.has(name) && (name !== TOOL_SEARCH || deferred.size > 0 || discovered.size > 0),
  };
}

/**
 * The tool sources whose size is decided by what the user installs or a repository brings, not by
 * keel: MCP servers (`mcp`) and plugins (`plugin`: manifest virtual tools, aliases, code-plugin tools).
 * Only these are deferred behind tool_search, and only these are what it searches.
 */
export function isDeferrable(source: ToolSource): boolean {
  return source.kind === "mcp" || source.kind === "plugin";
}

/** What `tool_search` searches: the registry's deferrable tools (see isDeferrable) that no plugin blocks. Never throws. */
export function searchableTools(host: Host): ToolListing[] {
  return host.registry.listing().filter((t) => isDeferrable(t.source) && !isBlocked(host, t.name));
}

function isBlocked(host: Host, name: string): boolean {
  const resolved = host.registry.resolve(name);
  if (!resolved) return false;
  try {
    return Boolean(host.hooks.toolBlocked.call({ host, calledAs: name, tool: resolved.tool })?.block);
  } catch {
    return true;
  }
}
