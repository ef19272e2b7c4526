import type { Host, RunContext } from "../../core/index.js";
import { renderText } from "../workflow/template-values.js";

/** One MCP prompt argument. */
export interface ServedPromptArgument {
  name: string;
  description?: string;
  required?: boolean;
}

/** One prompt as `keel mcp serve` lists it. */
export interface ServedPrompt {
  name: string;
  description?: string;
  arguments: ServedPromptArgument[];
}

/** The text of a prompt, or why it cannot be made (a missing argument, an unknown name). */
export type PromptText = { text: string } | { error: string };

/**
 * The prompts keel serves: prompt commands (Claude Code `.md`, Gemini CLI `.toml`; one argument,
 * `arguments`, the text after the command name) and workflows that carry a `prompt` (their
 * parameters' properties as arguments). Workflows the workspace may not run yet are left out.
 */
export function servedPrompts(host: Host): ServedPrompt[] {
  const workflows = host.service("workflows");
  const prompts: ServedPrompt[] = [];
  for (const wf of workflows?.list() ?? []) {
    const step = wf.steps[0];
    if (wf.steps.length === 1 && step?.kind === "command") {
      const hint = step.command.argumentHint;
      prompts.push({
        name: wf.name,
        ...(wf.description ? { description: wf.description } : {}),
        arguments: [{ name: "arguments", description: hint ? `Arguments: ${hint}` : "Text after the command name ($ARGUMENTS)", required: false }],
      });
    } else if (wf.prompt && !workflows!.needsTrust(wf)) {
      const props = (wf.parameters?.properties ?? {}) as Record<string, { description?: unknown }>;
      const required = new Set(Array.isArray(wf.parameters?.required) ? (wf.parameters.required as string[]) : []);
      prompts.push({
        name: wf.name,
        ...(wf.description ? { description: wf.description } : {}),
        arguments: Object.entries(props).map(([name, p]) => ({
          name,
          ...(typeof p?.description === "string" ? { description: p.description } : {}),
          required: required.has(name),
        })),
      });
    }
  }
  return prompts;
}

/**
 * Renders prompt `name` with `args`: a prompt command is expanded as `/name args` would be for
 * `keel run` (its permitted shell lines run through the pipeline with `run`); a workflow's prompt
 * is rendered with its arguments. Never throws for a bad name or argument (an `error` instead).
 */
export async function promptText(host: Host, name: string, args: Record<string, string>, run: RunContext): Promise<PromptText> {
  const prompt = servedPrompts(host).find((p) => p.name === name);
  if (!prompt) return { error: `Unknown prompt "${name}". List the prompts (prompts/list) for the names keel serves.` };
  // Own keys only: a required argument named `toString` is not given by Object.prototype.
  const missing = prompt.arguments.filter((a) => a.required && (!Object.hasOwn(args, a.name) || args[a.name] === undefined || args[a.name] === ""));
  if (missing.length) return { error: `Prompt "${name}" needs the argument${missing.length > 1 ? "s" : ""} ${missing.map((a) => a.name).join(", ")}.` };
  const wf = host.service("workflows")!.get(name)!;
  if (wf.steps.length === 1 && wf.steps[0]!.kind === "command") {
    const expanded = await host.service("prompt-commands")?.expand(`/${name} ${args.arguments ?? ""}`.trim(), run);
    if (!expanded) return { error: `Prompt command /${name} could not be expanded.` };
    return { text: expanded.prompt };
  }
  return { text: renderText(wf.prompt!, { ...args, steps: {}, workflow: { name: wf.name } }).value };
}
