import type { Command } from "commander";
import { UsageError } from "../errors.js";

/**
 * Registers `keel NAME` as a command group whose bare form runs `run` (e.g. `keel mcp` lists), and
 * makes `keel NAME WORD`, for a WORD that is none of its subcommands, a usage error naming the
 * forms in `usage` (commander would otherwise report "too many arguments").
 */
export function commandGroup(program: Command, name: string, description: string, usage: string, run: () => Promise<void>): Command {
  return program
    .command(name)
    .description(description)
    .allowExcessArguments(true)
    .action(async (_options: unknown, self: Command) => {
      const word = self.args[0];
      if (word !== undefined) {
        const { didYouMean } = await import("../did-you-mean.js");
        const hint = didYouMean(
          word,
          self.commands.map((c) => c.name()),
        );
        throw new UsageError(`Unknown command "keel ${name} ${word}".${hint} Use: ${usage} (keel ${name} --help lists them).`);
      }
      await run();
    });
}
