import type { PromptCommand } from "../../manifests/commands/prompt-command.js";
import type { WorkflowDefinition } from "../../manifests/workflow/workflow-schema.js";

/**
 * A prompt command as a one-step workflow, so `keel workflow list|show|run` and the workflow tools
 * know it: one parameter, `arguments` (the text after the command name), and a `command` step.
 */
export function commandWorkflow(cmd: PromptCommand): WorkflowDefinition {
  const format = cmd.syntax === "claude" ? "Claude Code command" : "Gemini CLI command";
  return {
    name: cmd.name,
    description: cmd.description ?? `${format} /${cmd.name}`,
    parameters: {
      type: "object",
      properties: { arguments: { type: "string", description: cmd.argumentHint ? `Arguments: ${cmd.argumentHint}` : "The text after the command name" } },
      additionalProperties: false,
    },
    steps: [{ kind: "command", index: 0, key: "1", title: `/${cmd.name}`, continueOnError: false, optional: false, path: "", command: cmd }],
    metadata: { format: cmd.syntax === "claude" ? "claude-command" : "gemini-command", ...(cmd.argumentHint ? { argumentHint: cmd.argumentHint } : {}) },
    origin: { kind: "command", file: cmd.file, path: "", plugin: cmd.plugin, userLevel: cmd.level === "user" },
  };
}
