import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { AgentType, Host, KeelPlugin } from "../../core/index.js";
import { discoveryDirs } from "../../manifests/discovery-scope.js";
import type { AgentPlace } from "../../manifests/claude/load-agents.js";

const PLUGIN_NAME = "agent-types-runtime";
/** After every other runtime and plugin registered its tools, so an agent's unknown tool names can be told apart. */
const CHECK_STAGE = 1000;

/**
 * Sub-agent types for `delegate_agent` (Claude Code's agent files), from `$KEEL_HOME/agents/`,
 * `.claude/agents/*.md` of the working directory and its ancestors up to the workspace root (nearest
 * first) and the `agents/` folder of every loaded plugin (see agentPlaces for which wins a name);
 * provided as `"agent-types"`. A workspace without
 * agent folders costs one directory read per place: nothing is loaded or tapped.
 */
export function agentTypesRuntime(): KeelPlugin {
  return {
    name: PLUGIN_NAME,
    apply(host: Host) {
      let agents: AgentType[] = [];
      host.provide("agent-types", { list: () => agents });
      const places = agentPlaces(host);
      if (!places.some(hasMarkdown)) return;
      // stage 0: before delegate_agent (stage 100) registers, so its description lists the types
      host.hooks.registerTools.tapPromise({ name: PLUGIN_NAME, stage: 0 }, async () => {
        const { loadAgentTypes } = await import("../../manifests/claude/load-agents.js");
        const loaded = loadAgentTypes(places);
        for (const d of loaded.diagnostics) host.diagnostics.add(d);
        agents = loaded.agents;
      });
      host.hooks.registerTools.tapPromise({ name: PLUGIN_NAME, stage: CHECK_STAGE }, async () => {
        for (const agent of agents)
          for (const tool of agent.tools ?? [])
            if (!tool.startsWith("mcp__") && !host.registry.resolve(tool))
              host.diagnostics.add({
                severity: "warning",
                source: "agent",
                file: agent.file,
                message: `Agent "${agent.name}" lists the tool "${tool}", which keel does not have; the agent runs without it. Use a name from \`keel tools\` or a Claude Code tool name.`,
              });
      });
    },
  };
}

/**
 * Where agent files are looked for, in precedence order: yours first (`$KEEL_HOME/agents/`, then your
 * plugins'), so a cloned repository's agent of the same name cannot replace the tools and prompt you
 * gave it (user-level names win, as for skills, plugins, servers and workflows); then the project's
 * (nearest folder first), then the workspace's plugins'.
 */
function agentPlaces(host: Host): AgentPlace[] {
  const ws = host.workspace;
  const plugins = (host.service("plugins")?.handOffs() ?? []).map((p): AgentPlace => ({
    dir: join(p.root, "agents"),
    level: p.userLevel ? "user" : "project",
    boundary: p.root,
    plugin: p.plugin,
  }));
  return [
    { dir: join(ws.keelHome, "agents"), level: "user", boundary: ws.keelHome },
    ...plugins.filter((p) => p.level === "user"),
    ...discoveryDirs(ws.cwd, ws.root).map((dir): AgentPlace => ({ dir: join(dir, ".claude", "agents"), level: "project", boundary: ws.root })),
    ...plugins.filter((p) => p.level !== "user"),
  ];
}

function hasMarkdown(place: AgentPlace): boolean {
  try {
    return readdirSync(place.dir).some((e) => e.endsWith(".md"));
  } catch {
    return false;
  }
}
