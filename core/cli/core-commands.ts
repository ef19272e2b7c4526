import type { CommandRegistrar } from "./cli-context.js";
import { refuseInToolProcess } from "./your-terminal-only.js";

/** Registers the core commands: `tools`, `call`, `trust`. Implementations load lazily. */
export const registerCoreCommands: CommandRegistrar = (program, ctx) => {
  program
    .command("tools")
    .description("List every tool in the unified registry (built-ins, plugins, runtimes, MCP servers)")
    .action(async () => (await import("./commands/tools-command.js")).toolsCommand(ctx));

  program
    .command("call")
    .description("Run one tool call through the full pipeline and print the observation")
    .argument("<tool>", "tool name (or alias)")
    .option("--input <json>", "tool input as a JSON object")
    .option("--input-file <file>", "read the tool input from a JSON file (- for stdin)")
    .action(async (tool: string, opts: { input?: string; inputFile?: string }) => (await import("./commands/call-command.js")).callCommand(ctx, tool, opts));

  program
    .command("trust")
    .description("Trust this workspace: approve the MCP servers, hooks and code plugins it declares now (listed), and let its config widen")
    .option("--revoke", "remove the trust record instead")
    .action(async (opts: { revoke?: boolean }) => {
      // Before anything loads: the refusal must not depend on what a sandboxed process can import.
      refuseInToolProcess(ctx.io.env, opts.revoke ? "keel trust --revoke" : "keel trust");
      await (await import("./commands/trust-command.js")).trustCommand(ctx, opts);
    });
};
