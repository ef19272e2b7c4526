import type { KeelPlugin } from "../core/index.js";
import { taskRuntime } from "./task/index.js";
import { planRuntime } from "./plan/index.js";
import { teamRuntime } from "./team/index.js";
import { configRuntime } from "./config/index.js";
import { worktreeRuntime } from "./worktree/index.js";
import { workflowRuntime } from "./workflow/index.js";
import { mcpRuntime } from "./mcp/index.js";
import { skillsRuntime } from "./skills/index.js";
import { agentTypesRuntime } from "./agents/index.js";
import { claudeHooksRuntime } from "./hooks/index.js";

/**
 * Every domain runtime, in application order. Each is a plugin (`apply(host)`) living in its
 * own folder under `runtimes/`. Add one line per runtime.
 */
export function defaultRuntimes(): KeelPlugin[] {
  return [
    taskRuntime(),
    planRuntime(),
    teamRuntime(),
    configRuntime(),
    worktreeRuntime(),
    workflowRuntime(),
    mcpRuntime(),
    skillsRuntime(),
    agentTypesRuntime(),
    claudeHooksRuntime(),
  ];
}
