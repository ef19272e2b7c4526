import type { CommandRegistrar } from "../core/cli/index.js";
import { registerTaskCommands } from "./task/cli.js";
import { registerPlanCommands } from "./plan/cli.js";
import { registerTeamCommands } from "./team/cli.js";
import { registerConfigCommands } from "./config/cli.js";
import { registerWorktreeCommands } from "./worktree/worktree-cli.js";
import { registerWorkflowCommands } from "./workflow/workflow-cli.js";
import { registerMcpCommands } from "./mcp/cli.js";
import { registerHookCommands } from "./hooks/cli.js";
import { registerDoctorCommands } from "./doctor/cli.js";

/** CLI registrars of every runtime (`keel mcp`, `keel task`, ...). Add one line per runtime. */
export const runtimeCommands: CommandRegistrar[] = [
  registerTaskCommands,
  registerPlanCommands,
  registerTeamCommands,
  registerConfigCommands,
  registerWorktreeCommands,
  registerWorkflowCommands,
  registerMcpCommands,
  registerHookCommands,
  registerDoctorCommands,
];
