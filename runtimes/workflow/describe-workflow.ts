import type { WorkflowDefinition, WorkflowStep } from "../../manifests/workflow/workflow-schema.js";
import type { WorkflowRunRecord } from "./run-record.js";
import { finishedLine, formatDuration } from "./workflow-progress.js";

/** One line per workflow: `- review ; steps=3 ; Review the current patch.` (the reference host's index format). */
export function describeWorkflowIndex(workflows: WorkflowDefinition[]): string {
  if (!workflows.length) return "# Workflows\n\nNo workflows discovered.";
  return ["# Workflows", "", ...workflows.map((w) => `- ${w.name} ; steps=${w.steps.length} ; ${w.description ?? "No description."}`)].join("\n");
}

/** Why workspace workflows will not run yet, and how to trust the workspace. */
export const NEEDS_TRUST_NOTE = "this workspace is not trusted; trust it with `keel trust`, or pass --trust or set KEEL_TRUST=1 for one invocation";

/** A workflow as readable text: source, trust, description, parameters, prompt, worktree and every step with its kind. */
export function describeWorkflow(wf: WorkflowDefinition, needsTrust = false): string {
  const lines = [
    "# Workflow",
    "",
    `name=${wf.name}`,
    `source_manifest=${wf.origin.file}${wf.origin.plugin ? ` (plugin ${wf.origin.plugin})` : ""}`,
    `step_count=${wf.steps.length}`,
  ];
  if (needsTrust) lines.push(`needs_trust=true (the workflow will not run: ${NEEDS_TRUST_NOTE})`);
  if (wf.worktree) lines.push(`worktree=true (onFinish: ${wf.worktree.onFinish})`);
  if (wf.description) lines.push("", "## Description", wf.description);
  if (wf.parameters) lines.push("", "## Parameters", JSON.stringify(wf.parameters, null, 2));
  if (wf.prompt) lines.push("", "## Prompt", wf.prompt);
  if (wf.steps.length) {
    lines.push("", "## Steps");
    for (const step of wf.steps) lines.push(...describeStep(step));
  }
  return lines.join("\n");
}

function describeStep(step: WorkflowStep): string[] {
  const head = `${step.index + 1}. [${step.kind}]${step.id ? ` (${step.id})` : ""} `;
  const flags = [
    step.if ? `if ${step.if}` : "",
    step.continueOnError ? "continueOnError" : "",
    step.timeoutMs ? `timeout ${step.timeoutMs} ms` : "",
    step.optional ? "optional" : "",
  ].filter(Boolean);
  const tail = flags.length ? `   (${flags.join(", ")})` : "";
  switch (step.kind) {
    case "note":
      return [`${head}${step.title}${tail}`, ...(step.detail ? [`   ${step.detail}`] : [])];
    case "tool":
      return [`${head}${step.title ?? `tool ${step.tool}`}${tail}`, `   ${step.tool} ${JSON.stringify(step.input)}`];
    case "run":
      return [`${head}${step.title ?? "shell"}${tail}`, `   $ ${step.run}`];
    case "prompt":
      return [`${head}${step.title ?? "prompt"}${tail}`, `   ${step.prompt}`];
    case "workflow":
      return [`${head}${step.title ?? `workflow ${step.workflow}`}${tail}`, `   ${step.workflow} ${JSON.stringify(step.arguments)}`];
    case "command":
      return [
        `${head}${step.title ?? `/${step.command.name}`}${tail}`,
        ...step.command.template
          .trimEnd()
          .split("\n")
          .map((l) => `   ${l}`),
      ];
  }
}

/** A run as readable text: id, status, arguments, each step's line, the rendered prompt, warnings and the worktree outcome. */
export function describeRun(record: WorkflowRunRecord): string {
  const lines = [
    "# Workflow Run",
    "",
    `run_id=${record.id}`,
    `workflow=${record.workflow}`,
    `status=${record.status}`,
    `created_at=${record.startedAt}`,
    `duration=${formatDuration(record.durationMs).slice(1, -1)}`,
  ];
  if (record.error) lines.push(`error=${record.error}`);
  if (Object.keys(record.arguments).length) lines.push("", "## Arguments", JSON.stringify(record.arguments, null, 2));
  if (record.steps.length) {
    lines.push("", "## Resolved Steps");
    for (const step of record.steps) {
      lines.push(`- ${finishedLine(step, record.steps.length)}`);
      if (step.status === "failed" && step.reason) lines.push(`    ${step.reason}`);
      else if (step.kind !== "note" && step.summary) lines.push(`    ${step.summary.split("\n").slice(0, 6).join("\n    ")}`);
    }
  }
  if (record.prompt) lines.push("", "## Prompt", record.prompt);
  if (record.worktree)
    lines.push(
      "",
      "## Worktree",
      `${record.worktree.name} (${record.worktree.branch}), onFinish ${record.worktree.onFinish}: ${record.worktree.result?.message ?? "not finished"}`,
    );
  if (record.warnings.length) lines.push("", "## Warnings", ...record.warnings.map((w) => `- ${w}`));
  return lines.join("\n");
}
