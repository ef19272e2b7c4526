import { DELEGATE_AGENT, TOOL_SEARCH } from "./agent/tool-menu.js";
import type { ToolSource } from "./types.js";

/** Name of the skills runtime's tool. */
export const SKILL_TOOL = "skill";

/** One of keel's own tools that is registered in some hosts only. */
export interface OnDemandTool {
  name: string;
  source: ToolSource;
  /** When keel registers it, for a diagnostic ("when skills exist"). */
  when: string;
}

/**
 * keel's own tools whose registration depends on the workspace (the skills runtime's `skill`, the MCP
 * runtime's `mcp_*` helpers) or on the host's assembly (the agent's `tool_search`, `delegate_agent`).
 * Their names are reserved whether they are registered here or not (see plugins/reserved-names.ts),
 * so a plugin alias or tool cannot take one where it happens to be free and stand in for keel's.
 */
export const ON_DEMAND_TOOLS: readonly OnDemandTool[] = Object.freeze([
  { name: SKILL_TOOL, source: { kind: "runtime", id: "skills" }, when: "when skills exist" },
  { name: TOOL_SEARCH, source: { kind: "runtime", id: "agent" }, when: "for the agent loop" },
  { name: DELEGATE_AGENT, source: { kind: "runtime", id: "agent" }, when: "for the agent loop" },
  ...["mcp_list_tools", "mcp_call_tool", "mcp_list_resources", "mcp_read_resource", "mcp_list_prompts", "mcp_get_prompt"].map((name) => ({
    name,
    source: { kind: "runtime" as const, id: "mcp" },
    when: "when MCP servers or resources are configured",
  })),
]);
