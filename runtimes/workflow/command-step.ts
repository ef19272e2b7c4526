import type { CommandStep } from "../../manifests/workflow/workflow-schema.js";
import { approvalReadByModel } from "../../core/index.js";
import { boundTools, type StepContext, type StepOutcome } from "./run-step.js";

/** Most characters of a rendered prompt kept in the run record. */
const RECORDED_CHARS = 2000;

/**
 * Runs a prompt command's step: renders the command with the run's `arguments` (`$ARGUMENTS`,
 * `{{args}}`, files, permitted shell lines — see commandRenderDeps), then one model turn with the
 * result through the agent service (the command's `model` when it names one). Never throws.
 */
export async function runCommandStep(step: CommandStep, ctx: StepContext): Promise<StepOutcome> {
  const cmd = step.command;
  const args = typeof ctx.values.arguments === "string" ? ctx.values.arguments : "";
  const label = `/${cmd.name}${args ? ` ${args}` : ""}`;
  ctx.started(label);
  const [{ renderCommand }, { commandRenderDeps, commandMayRunShell }, { commandModel }] = await Promise.all([
    import("../commands/render-command.js"),
    import("../commands/command-deps.js"),
    import("../commands/expand-prompt.js"),
  ]);
  // Under a bound (keel mcp serve --tools) the shell lines and @files need their tools within it, as for prompts/get.
  const bound = ctx.run.toolBound;
  const rendered = await renderCommand(cmd, args, commandRenderDeps(ctx.host, cmd, { ...ctx.run, signal: ctx.signal, ...(bound ? { isVisible: bound } : {}) }));
  const recorded = rendered.text.length > RECORDED_CHARS ? `${rendered.text.slice(0, RECORDED_CHARS)}…` : rendered.text;
  const agent = ctx.host.service("agent");
  if (!agent) {
    const how =
      'No model is configured, so commands cannot run. Configure one in keel.config.json (e.g. {"model": {"name": "gpt-4.1-mini"}}) or $KEEL_HOME/config.json.';
    return {
      record: { label, status: "failed", rendered: recorded, reason: how, summary: how, code: "precondition_failed" },
      value: { ok: false, content: how, data: null, code: "precondition_failed" },
    };
  }
  const result = await agent.runPrompt({
    prompt: rendered.text,
    model: commandModel(cmd, commandMayRunShell(ctx.host, cmd)),
    cwd: ctx.run.cwd,
    signal: ctx.signal,
    yes: ctx.run.yes,
    parentSessionId: ctx.run.sessionId,
    tools: boundTools(ctx.host, ctx.run),
    readByModel: approvalReadByModel(ctx.host, ctx.run),
  });
  const code = result.ok ? "ok" : result.reason === "cancelled" ? "cancelled" : "execution_failed";
  const excerpt = result.text.length > 500 ? `${result.text.slice(0, 500)}…` : result.text;
  return {
    record: {
      label,
      status: result.ok ? "succeeded" : code === "cancelled" ? "cancelled" : "failed",
      rendered: recorded,
      code,
      summary: excerpt,
      reason: result.ok ? undefined : `${result.reason}: ${excerpt}`,
    },
    value: {
      ok: result.ok,
      content: result.text,
      data: { sessionId: result.sessionId, reason: result.reason, shell: rendered.shell, files: rendered.files },
      code,
    },
  };
}
