import type { Host, KeelPlugin } from "../host.js";
import { resolveModelSpec } from "../model/model-spec.js";
import { AgentRuntime } from "./agent-runtime.js";
import { delegateAgentTool } from "./delegate-agent-tool.js";
import { toolSearchTool } from "./tool-search-tool.js";

const PLUGIN_NAME = "agent";

export type { SessionStateService } from "../services.js";

/**
 * The agent loop as a plugin: registers `tool_search` and `delegate_agent`, provides the
 * runtime as `"agent-runtime"`, per-session plugin state as `"session-state"`, and the
 * AgentService as `"agent"` when a model is configured.
 */
export function agentPlugin(): KeelPlugin {
  return {
    name: PLUGIN_NAME,
    apply(host: Host) {
      const runtime = new AgentRuntime(host);
      host.provide("agent-runtime", runtime);
      host.provide("session-state", { get: (id) => runtime.pluginState(id) });
      try {
        if (resolveModelSpec(host.config, undefined, host.env, host.workspace.root)) host.provide("agent", runtime);
      } catch {
        // an unusable model config is reported when a run needs it
      }
      host.hooks.registerTools.tapPromise({ name: PLUGIN_NAME, stage: 100 }, async () => {
        host.registry.register(toolSearchTool(host));
        host.registry.register(delegateAgentTool(host, runtime));
      });
    },
  };
}
