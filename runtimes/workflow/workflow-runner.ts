import { type Approver, describeSchemaErrors, errorMessage, type Host, linkedSignal, workspaceDirIn, type WorktreeInfo } from "../../core/index.js";
import { MAX_WORKFLOW_DEPTH, type WorkflowDefinition, type WorkflowStep, type WorktreeFinish } from "../../manifests/workflow/workflow-schema.js";
import { newRunId, type StepRecord, type WorkflowRunRecord } from "./run-record.js";
import { RenderBudget } from "./render-budget.js";
import { runStep } from "./run-step.js";
import { evaluateCondition, renderText, type TemplateValues } from "./template-values.js";
import type { WorkflowProgress } from "./workflow-progress.js";
import { untrustedWorkflowMessage } from "./workflow-trust.js";

/** How to run a workflow. Everything is optional. */
export interface WorkflowRunOptions {
  args?: Record<string, unknown>;
  /** Ctrl-C: cancels the running step and records `cancelled`. */
  signal?: AbortSignal;
  /** `--yes` for every step's permission check (deny rules still win). */
  yes?: boolean;
  approver?: Approver;
  sessionAllow?: Set<string>;
  sessionId?: string;
  /** The tools its prompt steps and prompt commands may use (see `RunContext.toolBound`); unset: no bound beyond the calling session's. */
  toolBound?: (name: string) => boolean;
  /** Who started it: `cli`, `tool`, ... */
  origin?: string;
  /**
   * A model asked for this run and reads its report and its steps' results (default: when `origin` is `tool`, the
   * model's workflow_run); nested runs inherit it. Commands with `disable-model-invocation: true` are refused then.
   */
  readByModel?: boolean;
  /**
   * A model reads this run's report, though the user started it: a step of the run that started this one hands it
   * to a model (see `runWorkflow`). keel's messages in it are worded for a model; commands are not refused.
   */
  reportReadByModel?: boolean;
  /** Run in a fresh managed worktree even if the workflow does not ask for one (value: onFinish). */
  worktree?: WorktreeFinish;
  progress?: WorkflowProgress;
  /** Directory steps run in (default: the host's active directory). */
  cwd?: string;
  /** Names of the workflows above this one (nested runs). */
  stack?: string[];
}

/** What the runner needs besides the workflow itself. */
export interface RunnerEnv {
  host: Host;
  /** Finds a workflow by name (case-insensitive). */
  lookup(name: string): WorkflowDefinition | undefined;
}

/**
 * Runs a workflow: checks trust (a workflow of an untrusted workspace runs no step at all) and
 * validates arguments against `parameters` before any step runs, optionally creates a managed
 * worktree, runs the steps in order (every tool and shell step through `host.runTool`), then
 * finishes the worktree. Never throws: failures are in the record.
 */
export async function runWorkflow(env: RunnerEnv, wf: WorkflowDefinition, opts: WorkflowRunOptions = {}): Promise<WorkflowRunRecord> {
  const started = Date.now();
  const stack = [...(opts.stack ?? []), wf.name];
  const depth = stack.length - 1;
  const record: WorkflowRunRecord = {
    id: newRunId(),
    workflow: wf.name,
    source: wf.origin.file,
    status: "succeeded",
    startedAt: new Date(started).toISOString(),
    finishedAt: "",
    durationMs: 0,
    arguments: { ...(opts.args ?? {}) },
    steps: [],
    warnings: [],
    depth,
    origin: opts.origin ?? "api",
  };
  const done = (status: WorkflowRunRecord["status"], error?: string) => {
    record.status = status;
    if (error) record.error = error;
    record.finishedAt = new Date().toISOString();
    record.durationMs = Date.now() - started;
    return record;
  };
  const refuse = (error: string, why: NonNullable<WorkflowRunRecord["refused"]>) => {
    record.refused = why;
    record.steps = wf.steps.map((s) => skippedRecord(s, "the run was refused before any step ran"));
    return done("failed", error);
  };

  const above = opts.stack ?? [];
  if (above.some((n) => n.toLowerCase() === wf.name.toLowerCase()))
    return refuse(`Workflow cycle detected: ${stack.join(" → ")}. A workflow may not call itself, directly or through others.`, "nesting");
  if (depth > MAX_WORKFLOW_DEPTH)
    return refuse(`Workflows are nested too deeply (${stack.join(" → ")}); the limit is ${MAX_WORKFLOW_DEPTH} levels.`, "nesting");
  const readByModel = opts.readByModel ?? opts.origin === "tool";
  // Who reads keel's messages in the report: a model when one started the run or a step above hands the report to one.
  const reportForModel = readByModel || opts.reportReadByModel === true;
  // And in the steps' results: a prompt step (or a prompt command's turn) of this run puts them in a model's prompt too.
  const stepsForModel = reportForModel || wf.steps.some((s) => s.kind === "prompt" || s.kind === "command");
  if (readByModel && wf.steps.some((s) => s.kind === "command" && s.command.modelInvocable === false))
    return refuse(
      `The command /${wf.name} (${wf.origin.file}) has disable-model-invocation: true: only the user may run it (keel run "/${wf.name}", keel workflow run ${wf.name}), not the model. Ask the user to run it.`,
      "invocation",
    );
  const untrusted = untrustedWorkflowMessage(env.host, wf, reportForModel);
  if (untrusted) return refuse(untrusted, "trust");
  const prepared = prepareArguments(env.host, wf, opts.args ?? {});
  record.arguments = prepared.args;
  if (prepared.error) return refuse(prepared.error, "arguments");

  const values: TemplateValues = { ...prepared.args, steps: {}, workflow: { name: wf.name }, run: { id: record.id } };
  if (wf.prompt)
    try {
      record.prompt = track(record, renderText(wf.prompt, values, new RenderBudget(`The prompt of workflow "${wf.name}" (${wf.origin.file})`)), "prompt");
    } catch (error) {
      // Too long once rendered: a refusal with a record, as a bad argument is (it threw out of the run).
      return refuse(errorMessage(error), "arguments");
    }

  let worktree: WorktreeInfo | undefined;
  const onFinish = opts.worktree ?? wf.worktree?.onFinish;
  if (onFinish) {
    const service = env.host.service("worktrees");
    if (!service) return refuse("This workflow runs in a managed worktree, but the worktree runtime is not loaded.", "worktree");
    try {
      worktree = await service.create(worktreeName(wf.name, record.id), opts.signal);
    } catch (error) {
      return refuse(`Could not create a worktree for the run: ${errorMessage(error)}`, "worktree");
    }
    record.worktree = { name: worktree.name, path: worktree.path, branch: worktree.branch, onFinish };
    values.worktree = { ...worktree };
  }

  // A workspace in a subfolder of its repository works in the same subfolder of the worktree.
  const cwd = worktree ? workspaceDirIn(worktree.path, env.host.workspace.root) : opts.cwd;
  const runCtx = {
    yes: opts.yes,
    approver: opts.approver,
    sessionAllow: opts.sessionAllow,
    sessionId: opts.sessionId,
    ...(opts.toolBound ? { toolBound: opts.toolBound } : {}),
    origin: `workflow:${stack.join(">")}`,
    readByModel: stepsForModel,
    ...(cwd ? { cwd } : {}),
  };
  let stop: { status: "failed" | "cancelled"; reason: string } | undefined;
  const total = wf.steps.length;

  for (const step of wf.steps) {
    if (!stop && opts.signal?.aborted) stop = { status: "cancelled", reason: "cancelled (Ctrl-C)" };
    if (stop) {
      record.steps.push(skippedRecord(step, stop.status === "cancelled" ? "the run was cancelled" : "an earlier step failed"));
      continue;
    }
    if (step.if !== undefined) {
      const cond = evaluateCondition(step.if, values);
      if (!cond.found) record.warnings.push(`step ${step.key}: "if" reference ${JSON.stringify(step.if)} has no value (treated as false)`);
      if (!cond.run) {
        const rec = skippedRecord(step, `"if": ${step.if} is false`);
        values.steps[step.key] = { ok: false, skipped: true, content: "", data: null, code: "skipped" };
        opts.progress?.stepFinished({ depth, total, step: rec });
        record.steps.push(rec);
        continue;
      }
    }
    const t0 = Date.now();
    const timeout = step.timeoutMs ? AbortSignal.timeout(step.timeoutMs) : undefined;
    // Not `AbortSignal.any`: on Node 20 each step's would leave an entry on the run's signal, which may live far
    // longer than the run (a chat's, `keel mcp serve`'s), and keep the timeout's for good once a listener is on it.
    const linked = linkedSignal([opts.signal, timeout]);
    let outcome: Awaited<ReturnType<typeof runStep>>;
    try {
      outcome = await runStep(step, {
        host: env.host,
        values,
        workflow: { name: wf.name, file: wf.origin.file },
        signal: linked.signal,
        run: runCtx,
        started: (label) => opts.progress?.stepStarted({ depth, index: step.index, total, label, kind: step.kind }),
        nested: (name, args, s) =>
          runNested(env, name, args, { ...opts, readByModel, reportReadByModel: stepsForModel, signal: s, stack, cwd, worktree: undefined }),
      });
    } finally {
      linked.unlink();
    }
    const rec: StepRecord = { index: step.index, key: step.key, kind: step.kind, durationMs: Date.now() - t0, ...outcome.record };
    if (timeout?.aborted && !opts.signal?.aborted && rec.status !== "succeeded") {
      rec.status = "failed";
      rec.code = "timeout";
      rec.reason = `timed out after ${step.timeoutMs} ms`;
      outcome.value.code = "timeout";
    }
    for (const m of rec.missing ?? []) record.warnings.push(`step ${step.key}: unknown placeholder {${m}} was left as is`);
    for (const w of rec.child?.warnings ?? []) record.warnings.push(`step ${step.key} (workflow ${rec.child!.workflow}) › ${w}`);
    values.steps[step.key] = outcome.value;
    if (rec.status === "failed" && step.continueOnError) rec.continued = true;
    record.steps.push(rec);
    opts.progress?.stepFinished({ depth, total, step: rec });
    if (rec.status === "cancelled" || (opts.signal?.aborted && rec.status !== "succeeded")) stop = { status: "cancelled", reason: "cancelled (Ctrl-C)" };
    else if (rec.status === "failed" && !step.continueOnError)
      stop = { status: "failed", reason: `step ${step.key} (${rec.label}) failed: ${rec.reason ?? rec.code}` };
  }

  if (worktree && record.worktree) {
    const service = env.host.service("worktrees")!;
    const action: WorktreeFinish = onFinish === "merge" && stop ? "keep" : onFinish!;
    try {
      const result = await service.finish(worktree.name, action, { force: action === "discard" });
      record.worktree.result = result;
      if (!result.ok && !stop) stop = { status: "failed", reason: `the steps succeeded, but finishing the worktree (${action}) failed: ${result.message}` };
    } catch (error) {
      if (!stop) stop = { status: "failed", reason: `finishing the worktree (${action}) failed: ${errorMessage(error)}` };
    }
  }
  return stop ? done(stop.status, stop.reason) : done("succeeded");
}

async function runNested(
  env: RunnerEnv,
  name: string,
  args: Record<string, unknown>,
  opts: WorkflowRunOptions & { stack: string[] },
): Promise<WorkflowRunRecord> {
  const now = new Date().toISOString();
  const failed = (error: string): WorkflowRunRecord => ({
    id: newRunId(),
    workflow: name,
    source: "",
    status: "failed",
    startedAt: now,
    finishedAt: now,
    durationMs: 0,
    arguments: args,
    steps: [],
    warnings: [],
    depth: opts.stack.length,
    origin: "workflow",
    error,
  });
  const child = env.lookup(name);
  if (!child) return failed(`Unknown workflow "${name}". Run \`keel workflow list\` to see the available ones.`);
  return runWorkflow(env, child, { ...opts, args, origin: "workflow" });
}

/** Applies top-level `default`s from `parameters` and validates the arguments against it. */
function prepareArguments(host: Host, wf: WorkflowDefinition, raw: Record<string, unknown>): { args: Record<string, unknown>; error?: string } {
  const args = { ...raw };
  if (!wf.parameters) return { args };
  const props = (wf.parameters.properties ?? {}) as Record<string, { default?: unknown }>;
  for (const [key, prop] of Object.entries(props))
    if (args[key] === undefined && prop && typeof prop === "object" && "default" in prop) args[key] = structuredClone(prop.default);
  const compiled = host.validator.compile(wf.parameters);
  if (!compiled.ok)
    return { args, error: `The "parameters" of workflow "${wf.name}" (${wf.origin.file}) is not a valid JSON Schema: ${compiled.error}. No step was run.` };
  if (!compiled.validate(args))
    return {
      args,
      error: `Arguments do not match the parameters of workflow "${wf.name}": ${describeSchemaErrors(compiled.validate.errors, args).join("; ")}. No step was run. Pass arguments as --arg key=value (see \`keel workflow show ${wf.name}\`).`,
    };
  return { args };
}

function skippedRecord(step: WorkflowStep, reason: string): StepRecord {
  const label =
    step.title ??
    (step.kind === "run"
      ? `$ ${step.run}`
      : step.kind === "tool"
        ? `tool ${step.tool}`
        : step.kind === "workflow"
          ? `workflow ${step.workflow}`
          : step.kind === "prompt"
            ? "prompt"
            : step.kind);
  return { index: step.index, key: step.key, kind: step.kind, label, status: "skipped", durationMs: 0, reason };
}

function track(record: WorkflowRunRecord, rendered: { value: string; missing: string[] }, where: string): string {
  for (const m of rendered.missing) record.warnings.push(`${where}: unknown placeholder {${m}} was left as is`);
  return rendered.value;
}

/** A valid worktree name for a run: `wf-<workflow>-<run suffix>`. */
function worktreeName(workflow: string, runId: string): string {
  const slug =
    workflow
      .replace(/[^A-Za-z0-9_-]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 40) || "run";
  return `wf-${slug}-${runId.slice(-8)}`;
}
