import { ToolError } from "../errors.js";
import type { Host } from "../host.js";
import type { ModelSpec } from "../model/model-spec.js";
import type { AgentType } from "../services.js";
import type { SessionAgentType } from "../session/session-types.js";

/** Most agent types listed in delegate_agent's description (the rest are named when an unknown type is asked for). */
const MAX_LISTED = 25;
/** Longest description of one agent type in delegate_agent's description. */
const MAX_LISTED_DESCRIPTION = 200;

/** What a child session runs as when `delegate_agent` names an agent type. */
export interface AgentTypeChoice {
  agentType: SessionAgentType;
  /** The child's tool subset: the agent's tools, intersected with the call's `tools` when both are given. */
  tools?: string[];
  modelSpec: ModelSpec;
}

/** The agent types the host knows (none when the agent-types runtime is absent). */
export function agentTypes(host: Host): readonly AgentType[] {
  return host.service("agent-types")?.list() ?? [];
}

/** delegate_agent's description: the base text, then the agent types with their descriptions (bounded). */
export function describeAgentTypes(base: string, types: readonly AgentType[]): string {
  if (!types.length) return base;
  const lines = types.slice(0, MAX_LISTED).map((t) => {
    const d = t.description.replace(/\s+/g, " ");
    return `- ${t.name}: ${d.length > MAX_LISTED_DESCRIPTION ? `${d.slice(0, MAX_LISTED_DESCRIPTION - 1)}…` : d}`;
  });
  if (types.length > MAX_LISTED) lines.push(`- … and ${types.length - MAX_LISTED} more`);
  return `${base}\n\nAgent types (pass \`agent\` to run one; it brings its own instructions and tools):\n${lines.join("\n")}`;
}

/**
 * Resolves `delegate_agent`'s `agent` input: the type's prompt, its tools narrowed by the call's
 * `tools` (an agent type never widens what the call asked for), and the model (the type's model
 * name on the parent's endpoint; the parent's model for Claude aliases or a scripted parent).
 * Throws ToolError(precondition_failed) naming the available types when there is no such type.
 */
export function chooseAgentType(host: Host, name: string, callTools: string[] | undefined, parentModel: ModelSpec): AgentTypeChoice {
  const types = agentTypes(host);
  const type = types.find((t) => t.name === name);
  if (!type) {
    const available = types.length
      ? `Available agent types: ${types.map((t) => t.name).join(", ")}.`
      : "No agent types are defined here (they come from .claude/agents/*.md, $KEEL_HOME/agents/*.md and plugins' agents/*.md).";
    throw new ToolError(`No agent type named "${name}". ${available} Pick one of them, or omit "agent" to run a general sub-agent.`, "precondition_failed");
  }
  let tools = callTools;
  if (type.tools) tools = callTools ? callTools.filter((t) => type.tools!.includes(t)) : [...type.tools];
  if (type.disallowedTools?.length) tools = withoutDisallowed(host, tools, type.disallowedTools);
  const modelSpec: ModelSpec = type.model && parentModel.kind === "openai" ? { ...parentModel, name: type.model } : parentModel;
  return { agentType: { name: type.name, file: type.file, prompt: type.prompt }, tools, modelSpec };
}

/**
 * `tools` (undefined: every tool and alias registered now) without the agent's `disallowedTools`: a
 * name is removed when it, or the base tool it resolves to, is disallowed, so an alias of `bash` goes
 * with `bash`; `mcp__server` (or `mcp__server__*`) removes every tool of that server. Tools registered
 * later in the session (an MCP server that starts after the child) are not in the list: the child
 * runs without them, which only narrows.
 */
export function withoutDisallowed(host: Host, tools: readonly string[] | undefined, disallowed: readonly string[]): string[] {
  const exact = new Set(disallowed.filter((d) => !d.endsWith("__*")));
  const servers = disallowed.flatMap((d) => {
    const m = /^mcp__(.+?)(?:__\*)?$/.exec(d);
    return m && !m[1]!.includes("__") ? [`mcp__${m[1]}__`] : [];
  });
  const hit = (name: string) => exact.has(name) || servers.some((p) => name.startsWith(p));
  const names = tools ?? host.registry.listing().map((t) => t.name);
  return names.filter((name) => {
    if (hit(name)) return false;
    const base = host.registry.resolve(name)?.tool.name;
    return base === undefined || !hit(base);
  });
}
