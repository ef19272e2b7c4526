import { UsageError } from "../errors.js";

/**
 * The usage error for `keel PARENT WORD` when PARENT runs a default action and WORD is none of its
 * subcommands (commander would otherwise report "too many arguments").
 */
export function unknownSubcommand(parent: string, word: string, usage: string): UsageError {
  return new UsageError(`Unknown command "keel ${parent} ${word}". Use: ${usage} (keel ${parent} --help lists them).`);
}
