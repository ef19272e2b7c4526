import type { Host } from "../host.js";
import { DEFAULT_CONTEXT_WINDOW, resolveModelSpec, type ModelSpec } from "../model/model-spec.js";
import { TokenEstimator } from "../model/token-estimate.js";
import { agentSettings, type AgentSettings } from "./agent-settings.js";
import { buildToolMenu, type ToolMenu } from "./tool-menu.js";

/** The tool menu a new top-level session here starts with, and what it was judged against. */
export interface StartToolMenu {
  menu: ToolMenu;
  settings: AgentSettings;
  spec: ModelSpec | undefined;
  contextWindow: number;
  estimator: TokenEstimator;
}

/**
 * The menu of a session about to start in this host (depth 0, no subset, nothing discovered yet):
 * what `keel context` and `keel tools` show. Throws what agentSettings and resolveModelSpec throw
 * (a config error naming its field).
 */
export function startToolMenu(host: Host, model?: string): StartToolMenu {
  const settings = agentSettings(host.config as Record<string, unknown>);
  const spec = resolveModelSpec(host.config, model, host.env, host.workspace.root);
  const contextWindow = spec?.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
  const estimator = new TokenEstimator();
  const menu = buildToolMenu({ host, depth: 0, toolSearchShare: settings.toolSearchShare, contextWindow, discoveredTools: [], estimator });
  return { menu, settings, spec, contextWindow, estimator };
}
