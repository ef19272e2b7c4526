import type { ExpandedPrompt, Host, RunContext } from "../../core/index.js";
import type { PromptCommand } from "../../manifests/commands/prompt-command.js";

/** Claude Code's model aliases: Anthropic names that mean nothing to another endpoint, so the configured model runs. */
export const CLAUDE_MODEL_ALIASES: ReadonlySet<string> = new Set(["inherit", "sonnet", "opus", "haiku", "default"]);

/**
 * The model a command asks for, when keel can use it (not a Claude alias). A `scripted:FILE` model
 * only from a command that may widen (`mayWiden`): a repository's script would choose every tool call
 * the run makes. (A workspace Claude command's is already dropped, with a warning, when it is parsed.)
 */
export function commandModel(cmd: PromptCommand, mayWiden: boolean): string | undefined {
  if (!cmd.model || CLAUDE_MODEL_ALIASES.has(cmd.model)) return undefined;
  return mayWiden || !cmd.model.trim().startsWith("scripted:") ? cmd.model : undefined;
}

/**
 * Expands `/name args` when `name` is a prompt command (`find` looks it up): the rendered text
 * (arguments, files, permitted shell lines) and the command's model. Undefined for any other prompt.
 */
export async function expandPrompt(
  host: Host,
  prompt: string,
  run: RunContext,
  find: (name: string) => PromptCommand | undefined,
): Promise<ExpandedPrompt | undefined> {
  const m = /^\s*\/([\w][\w:.-]*)(?:\s+([\s\S]*))?$/.exec(prompt);
  const cmd = m ? find(m[1]!) : undefined;
  if (!m || !cmd) return undefined;
  const [{ renderCommand }, { commandRenderDeps, commandMayRunShell }] = await Promise.all([import("./render-command.js"), import("./command-deps.js")]);
  const rendered = await renderCommand(cmd, (m[2] ?? "").trim(), commandRenderDeps(host, cmd, run));
  return { name: cmd.name, prompt: rendered.text, model: commandModel(cmd, commandMayRunShell(host, cmd)) };
}
