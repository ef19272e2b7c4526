import type { CommandRegistrar } from "../../core/cli/index.js";

/** Registers `keel doctor [--json]` (implementation loads lazily). */
export const registerDoctorCommands: CommandRegistrar = (program, ctx) => {
  program
    .command("doctor")
    .description("Check Node.js, config files and diagnostics, trust, the model, MCP servers, the sandbox and git; say how to fix each problem")
    .addHelpText("after", "\nExit 1 when a check fails (warnings do not). --json prints {ok, workspace, checks: [{name, status, message, fix?}]}.")
    .action(async () => (await import("./doctor-command.js")).doctorCommand(ctx));
};
