import type { CommandRegistrar } from "../core/cli/index.js";

/** Registers `keel plugins [--json]` (implementation loads lazily). */
export const registerPluginCommands: CommandRegistrar = (program, ctx) => {
  program
    .command("plugins")
    .description("List discovered plugins with what each adds, what was skipped and why, and diagnostics")
    .action(async () => (await import("./plugins-command.js")).pluginsCommand(ctx));
};
