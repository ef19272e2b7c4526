import type { Command } from "commander";
import { rawStream } from "../ci-log-commands.js";
import type { CliContext } from "../cli-context.js";
import { bashCompletion, fishCompletion, zshCompletion } from "../completion-script.js";

/** `keel completion bash|zsh|fish`: prints the completion script generated from `program`'s command tree (raw text, even with `--json`, and unframed in a CI log: keel's own text, made to be run). */
export async function completionCommand(ctx: CliContext, shell: "bash" | "zsh" | "fish", program: Command): Promise<void> {
  const script = shell === "bash" ? bashCompletion(program) : shell === "zsh" ? zshCompletion(program) : fishCompletion(program);
  rawStream(ctx.io.stdout).write(script);
}
