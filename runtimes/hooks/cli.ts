import type { CommandRegistrar } from "../../core/cli/index.js";

/** Registers `keel hooks [--json]` (implementation loads lazily). */
export const registerHookCommands: CommandRegistrar = (program, ctx) => {
  program
    .command("hooks")
    .description("List Claude Code command hooks: event, matcher, command, source and level, whether they run here and why, last outcome")
    .action(async () => (await import("./hooks-command.js")).hooksCommand(ctx));
};
