import { Argument, type Command } from "commander";
import type { CommandRegistrar } from "./cli-context.js";

/** The shells `keel completion` writes scripts for. */
export const COMPLETION_SHELLS = ["bash", "zsh", "fish"] as const;

/** Registers `keel init` and `keel completion SHELL`. Implementations load lazily. */
export const registerSetupCommands: CommandRegistrar = (program, ctx) => {
  program
    .command("init")
    .description("Write starter files: keel.config.json, plugins/example/plugin.json, .mcp.json, AGENTS.md, .keel/.gitignore (never overwrites)")
    .action(async () => (await import("./commands/init-command.js")).initCommand(ctx));

  program
    .command("completion")
    .description("Print a shell completion script generated from keel's commands and options")
    .addArgument(new Argument("<shell>", "bash, zsh or fish").choices(COMPLETION_SHELLS))
    .addHelpText(
      "after",
      [
        "",
        "Install:",
        "  bash: keel completion bash > ~/.local/share/bash-completion/completions/keel   (or: source <(keel completion bash))",
        '  zsh:  keel completion zsh > "${fpath[1]}/_keel"   (then restart zsh)',
        "  fish: keel completion fish > ~/.config/fish/completions/keel.fish",
      ].join("\n"),
    )
    .action(async (shell: (typeof COMPLETION_SHELLS)[number], _opts: unknown, self: Command) =>
      (await import("./commands/completion-command.js")).completionCommand(ctx, shell, rootOf(self)),
    );
};

function rootOf(cmd: Command): Command {
  let top = cmd;
  while (top.parent) top = top.parent;
  return top;
}
