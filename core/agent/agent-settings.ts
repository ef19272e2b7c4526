import { AgentConfig } from "../config/config-schema.js";
import { ManifestError } from "../errors.js";
import { DEFAULT_MAX_STEPS } from "../config/untrusted-config.js";

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
  // Checked as config loads too (naming the file); a config put together in code arrives here unchecked.
  const parsed = AgentConfig.safeParse(config.agent ?? {});
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
