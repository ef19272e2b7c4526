import { approvalReadByModel, errorMessage, type Host, type Observation, type RunContext } from "../../core/index.js";
import type { WorkflowStep } from "../../manifests/workflow/workflow-schema.js";
import { runCommandStep } from "./command-step.js";
import type { StepRecord, WorkflowRunRecord } from "./run-record.js";
import { RenderBudget } from "./render-budget.js";
import { renderDeep, renderShellCommand, renderText, type StepValue, type TemplateValues } from "./template-values.js";

/** Longest observation excerpt kept in a run record. */
export const SUMMARY_CHARS = 500;

/** Longest step label (one line) shown in progress and records. */
export const LABEL_CHARS = 120;

/** Everything one step needs from its run. */
export interface StepContext {
  host: Host;
  values: TemplateValues;
  /** The workflow the step is in, for messages. */
  workflow: { name: string; file: string };
  /** Aborted on Ctrl-C or the step's own timeout. */
  signal: AbortSignal;
  /** Pipeline options for tool and shell steps (yes, approver, cwd, origin, ...). */
  run: RunContext;
  /** Runs a nested workflow (cycle and depth checks included). */
  nested(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<WorkflowRunRecord>;
  /** Called once the step's label is rendered, before it executes. */
  started(label: string): void;
}

/** A finished step: its record and what later steps see under `steps.<key>`. */
export interface StepOutcome {
  record: Omit<StepRecord, "durationMs" | "index" | "key" | "kind">;
  value: StepValue;
}

/** Executes one step. Never throws: every failure is an outcome with a reason. */
export async function runStep(step: WorkflowStep, ctx: StepContext): Promise<StepOutcome> {
  const outcome = await execute(step, { ...ctx, started: (label) => ctx.started(oneLine(label, LABEL_CHARS)) });
  outcome.record.label = oneLine(outcome.record.label, LABEL_CHARS);
  return outcome;
}

/**
 * Renders a tool step's input. For a tool that runs its input as a shell command (bash, or an alias
 * of it: its permission key is `command`), the command is rendered like a `run` step's, every
 * substituted value one shell-quoted word, so a value such as `HEAD; touch x` cannot add shell syntax.
 */
function renderToolInput(
  host: Host,
  tool: string,
  input: unknown,
  values: TemplateValues,
  budget: RenderBudget,
): { value: unknown; missing: string[]; unsafe: string[] } {
  const resolved = host.registry.resolve(tool)?.tool;
  const key = resolved?.permissionKey === "command" ? "command" : undefined;
  if (!key || input === null || typeof input !== "object" || Array.isArray(input) || typeof (input as Record<string, unknown>)[key] !== "string")
    return { ...renderDeep(input, values, budget), unsafe: [] };
  const { [key]: command, ...rest } = input as Record<string, unknown>;
  const others = renderDeep(rest, values, budget);
  const shell = renderShellCommand(command as string, values, budget);
  return { value: { ...(others.value as Record<string, unknown>), [key]: shell.value }, missing: [...shell.missing, ...others.missing], unsafe: shell.unsafe };
}

/**
 * The outcome of a shell step not run because a value would land where no quoting holds (see
 * renderShellCommand): nothing ran, and the reason names the placeholders and what to write instead.
 */
function unsafeOutcome(label: string, tool: string, rendered: unknown, unsafe: string[]): StepOutcome {
  const names = unsafe.map((n) => `{${n}}`).join(", ");
  const reason = `Not run: ${names} stands where keel cannot quote a value safely (after a \\, inside \`…\`, \${…}, $((…)), ((…)), $[…], $'…', a # comment or a here-document), so the value could run as shell syntax. Nothing was executed. Write the placeholder as a word of its own or inside '…' or "…" (e.g. \`echo {x}\`, \`git log "{x}"\`), or use $(…) instead of backticks.`;
  return {
    record: { label, status: "failed", tool, rendered, code: "precondition_failed", phase: "validate", summary: reason, reason },
    value: { ok: false, content: reason, data: null, code: "precondition_failed" },
  };
}

async function execute(step: WorkflowStep, ctx: StepContext): Promise<StepOutcome> {
  // One budget for all the step renders (its input, command, cwd, title): N strings render at most MAX_RENDERED_CHARS in all.
  const budget = new RenderBudget(`Step ${step.key} (${step.path}) of workflow "${ctx.workflow.name}" (${ctx.workflow.file})`);
  try {
    switch (step.kind) {
      case "note":
        return note(step, ctx, budget);
      case "tool": {
        const input = renderToolInput(ctx.host, step.tool, step.input, ctx.values, budget);
        const label = step.title ? renderText(step.title, ctx.values, budget).value : `tool ${step.tool}`;
        ctx.started(label);
        if (input.unsafe.length) return unsafeOutcome(label, step.tool, input.value, input.unsafe);
        const obs = await ctx.host.runTool({ tool: step.tool, input: input.value }, { ...ctx.run, signal: ctx.signal });
        return fromObservation(obs, label, step.tool, input.value, input.missing, obs.content);
      }
      case "run": {
        const command = renderShellCommand(step.run, ctx.values, budget);
        const cwd = step.cwd === undefined ? undefined : renderText(step.cwd, ctx.values, budget);
        const label = step.title ? renderText(step.title, ctx.values, budget).value : `$ ${command.value}`;
        ctx.started(label);
        if (command.unsafe.length) return unsafeOutcome(label, "bash", command.value, command.unsafe);
        const input: Record<string, unknown> = { command: command.value };
        if (cwd) input.cwd = cwd.value;
        if (step.timeoutMs) input.timeout_ms = Math.min(step.timeoutMs, 600_000);
        const obs = await ctx.host.runTool({ tool: "bash", input }, { ...ctx.run, signal: ctx.signal });
        const data = obs.data as { stdout?: unknown } | null;
        const stdout = typeof data?.stdout === "string" ? data.stdout.replace(/\r?\n$/, "") : obs.content;
        return fromObservation(obs, label, "bash", command.value, [...command.missing, ...(cwd?.missing ?? [])], stdout);
      }
      case "prompt":
        return await prompt(step, ctx, budget);
      case "command":
        return await runCommandStep(step, ctx);
      case "workflow": {
        const args = renderDeep(step.arguments, ctx.values, budget);
        const label = step.title ? renderText(step.title, ctx.values, budget).value : `workflow ${step.workflow}`;
        ctx.started(label);
        const child = await ctx.nested(step.workflow, args.value as Record<string, unknown>, ctx.signal);
        const ok = child.status === "succeeded";
        const summary = ok
          ? `Workflow ${child.workflow} succeeded (${child.steps.length} steps).`
          : `Workflow ${child.workflow} ${child.status}: ${child.error ?? "a step failed"}`;
        return {
          record: {
            label,
            status: ok ? "succeeded" : child.status === "cancelled" ? "cancelled" : "failed",
            rendered: args.value,
            summary,
            reason: ok ? undefined : summary,
            missing: orUndefined(args.missing),
            child,
            code: ok ? "ok" : child.status,
          },
          value: {
            ok,
            content: summary,
            data: { runId: child.id, status: child.status, steps: child.steps.map((s) => ({ key: s.key, status: s.status, summary: s.summary })) },
            code: ok ? "ok" : child.status,
          },
        };
      }
    }
  } catch (error) {
    const reason = `The step could not run: ${errorMessage(error)}`;
    return {
      record: { label: step.title ?? step.kind, status: "failed", reason, summary: reason, code: "execution_failed" },
      value: { ok: false, content: reason, data: null, code: "execution_failed" },
    };
  }
}

function note(step: Extract<WorkflowStep, { kind: "note" }>, ctx: StepContext, budget: RenderBudget): StepOutcome {
  const title = renderText(step.title, ctx.values, budget);
  const detail = step.detail === undefined ? undefined : renderText(step.detail, ctx.values, budget);
  const label = detail ? `${title.value}: ${detail.value}` : title.value;
  ctx.started(label);
  return {
    record: { label, status: "succeeded", code: "ok", summary: label, missing: orUndefined([...title.missing, ...(detail?.missing ?? [])]) },
    value: { ok: true, content: label, data: { title: title.value, detail: detail?.value ?? null }, code: "ok" },
  };
}

async function prompt(step: Extract<WorkflowStep, { kind: "prompt" }>, ctx: StepContext, budget: RenderBudget): Promise<StepOutcome> {
  const text = renderText(step.prompt, ctx.values, budget);
  const label = step.title ? renderText(step.title, ctx.values, budget).value : `prompt: ${oneLine(text.value, 60)}`;
  ctx.started(label);
  const missing = orUndefined(text.missing);
  const agent = ctx.host.service("agent");
  if (!agent) {
    const how = `No model is configured, so prompt steps cannot run. Configure one in keel.config.json, e.g. {"model": {"name": "gpt-4.1-mini", "apiKeyEnv": "OPENAI_API_KEY"}} (with OPENAI_API_KEY set, and "baseUrl" for other OpenAI-compatible servers), or mark the step "optional": true to skip it without a model.`;
    if (step.optional)
      return {
        record: { label, status: "skipped", rendered: text.value, reason: "optional prompt step skipped: no model is configured", missing },
        value: { ok: false, skipped: true, content: "", data: null, code: "skipped" },
      };
    return {
      record: { label, status: "failed", rendered: text.value, reason: how, summary: how, code: "precondition_failed", missing },
      value: { ok: false, content: how, data: null, code: "precondition_failed" },
    };
  }
  const result = await agent.runPrompt({
    prompt: text.value,
    cwd: ctx.run.cwd,
    signal: ctx.signal,
    yes: ctx.run.yes,
    parentSessionId: ctx.run.sessionId,
    tools: boundTools(ctx.host, ctx.run),
    readByModel: approvalReadByModel(ctx.host, ctx.run),
  });
  const code = result.ok ? "ok" : result.reason === "cancelled" ? "cancelled" : "execution_failed";
  return {
    record: {
      label,
      status: result.ok ? "succeeded" : code === "cancelled" ? "cancelled" : "failed",
      rendered: text.value,
      code,
      summary: excerpt(result.text),
      reason: result.ok ? undefined : `${result.reason}: ${excerpt(result.text)}`,
      missing,
    },
    value: { ok: result.ok, content: result.text, data: { sessionId: result.sessionId, reason: result.reason }, code },
  };
}

function fromObservation(obs: Observation, label: string, tool: string, rendered: unknown, missing: string[], content: string): StepOutcome {
  const status = obs.ok ? "succeeded" : obs.code === "cancelled" ? "cancelled" : "failed";
  return {
    record: {
      label,
      status,
      tool,
      rendered,
      code: obs.code,
      phase: obs.phase,
      summary: excerpt(obs.content),
      reason: obs.ok ? undefined : `${obs.code} (phase ${obs.phase}): ${excerpt(obs.content)}`,
      missing: orUndefined(missing),
      artifacts: obs.artifacts.length ? obs.artifacts.map((a) => ({ kind: a.kind, path: a.path })) : undefined,
      messages: obs.messages.beforeTool.length || obs.messages.afterResult.length ? obs.messages : undefined,
    },
    value: { ok: obs.ok, content, data: obs.data, code: obs.code },
  };
}

/**
 * The tools a model run a step starts may use: the registry's tools `run.toolBound` admits; undefined
 * without a bound, or when the run is a calling session's (its own tool subset bounds it, and its
 * menu's visibility would also leave out the MCP tools it has not discovered yet).
 */
export function boundTools(host: Host, run: RunContext): string[] | undefined {
  const bound = run.toolBound;
  return bound && !run.sessionId ? host.registry.listing().flatMap((t) => (bound(t.name) ? [t.name] : [])) : undefined;
}

/** The first `SUMMARY_CHARS` characters of a text, marked when cut. */
export function excerpt(text: string): string {
  return text.length > SUMMARY_CHARS ? `${text.slice(0, SUMMARY_CHARS)}…` : text;
}

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function orUndefined(list: string[]): string[] | undefined {
  return list.length ? [...new Set(list)] : undefined;
}
