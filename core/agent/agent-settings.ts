import { z } from "zod";
import { ManifestError } from "../errors.js";
import { DEFAULT_MAX_STEPS } from "../config/untrusted-config.js";

/** The `agent` section of keel config (parsed here, at the boundary). */
export const AgentSettingsSchema = z
  .object({
    maxSteps: z.number().int().positive().optional(),
    systemPrompt: z.string().optional(),
    /** Share of the context window tool definitions may take before MCP and plugin tools are deferred behind tool_search. */
    toolSearchShare: z.number().min(0).max(1).optional(),
    /** Context share that triggers pruning of old tool outputs. */
    pruneAt: z.number().min(0).max(1).optional(),
    /** Context share that triggers compaction. */
    compactAt: z.number().min(0).max(1).optional(),
    budgets: z
      .object({
        maxTokens: z.number().int().positive().optional(),
        maxToolCalls: z.number().int().positive().optional(),
        maxModelCalls: z.number().int().positive().optional(),
      })
      .optional(),
  })
  .passthrough();

/** Resolved agent settings with defaults. */
export interface AgentSettings {
  maxSteps: number;
  systemPrompt?: string;
  toolSearchShare: number;
  pruneAt: number;
  compactAt: number;
  budgets: { maxTokens?: number; maxToolCalls?: number; maxModelCalls?: number };
}

/** Reads `config.agent` with defaults; throws ManifestError naming the field when invalid. */
export function agentSettings(config: Record<string, unknown>): AgentSettings {
  const parsed = AgentSettingsSchema.safeParse(config.agent ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ManifestError(`Invalid config field "agent.${issue.path.join(".")}": ${issue.message}.`, undefined, `agent.${issue.path.join(".")}`);
  }
  const a = parsed.data;
  return {
    maxSteps: a.maxSteps ?? DEFAULT_MAX_STEPS,
    systemPrompt: a.systemPrompt,
    toolSearchShare: a.toolSearchShare ?? 0.1,
    pruneAt: a.pruneAt ?? 0.75,
    compactAt: a.compactAt ?? 0.9,
    budgets: a.budgets ?? {},
  };
}
