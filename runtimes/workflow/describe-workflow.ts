import { exactText } from "../../core/cli/index.js";
import { orTrustOnce, TRUST_ONCE, visibleJson } from "../../core/index.js";
import type { WorkflowDefinition, WorkflowStep } from "../../manifests/workflow/workflow-schema.js";
import type { WorkflowRunRecord } from "./run-record.js";
import { finishedLine, formatDuration } from "./workflow-progress.js";

/** One line per workflow: `- review ; steps=3 ; Review the current patch.` (the reference host's index format). */
export function describeWorkflowIndex(workflows: WorkflowDefinition[]): string {
  if (!workflows.length) return "# Workflows\n\nNo workflows discovered.";
  // One line each, shown exactly: a newline in a cloned repository's description cannot fake another workflow.
  return [
    "# Workflows",
    "",
    ...workflows.map((w) => `- ${exactText(w.name)} ; steps=${w.steps.length} ; ${exactText(w.description ?? "No description.")}`),
  ].join("\n");
}

/** Why a workflow will not run and how to trust (`marked`: inside a process keel started for a tool, see orTrustOnce). */
export function needsTrustNote(marked = false): string {
  return `this workspace is not trusted; trust it with \`keel trust\`${orTrustOnce(marked, TRUST_ONCE.orOnce)}`;
}

/**
 * A workflow as readable text: source, trust, description, parameters, prompt, worktree and every step
 * with its kind. What a step runs or sends is shown exactly (`exactText`: a shell command or a tool's
 * input on one line, a prompt line by line), so a newline, a run of blanks or an invisible character in
 * a cloned repository's workflow cannot hide part of a command or fake another step.
 */
export function describeWorkflow(wf: WorkflowDefinition, needsTrust = false, marked = false): string {
  const lines = [
    "# Workflow",
    "",
    `name=${exactText(wf.name)}`,
    `source_manifest=${exactText(wf.origin.file)}${wf.origin.plugin ? ` (plugin ${exactText(wf.origin.plugin)})` : ""}`,
    `step_count=${wf.steps.length}`,
  ];
  if (needsTrust) lines.push(`needs_trust=true (the workflow will not run: ${needsTrustNote(marked)})`);
  if (wf.worktree) lines.push(`worktree=true (onFinish: ${wf.worktree.onFinish})`);
  // Indented, each line exact: a description cannot fake keel's own sections or steps (`## Steps` / `1. [run] …`) above the real ones.
  if (wf.description) lines.push("", "## Description", ...exactLines(wf.description, "  "));
  if (wf.parameters) lines.push("", "## Parameters", ...exactLines(JSON.stringify(wf.parameters, null, 2), ""));
  if (wf.prompt) lines.push("", "## Prompt", ...exactLines(wf.prompt, ""));
  if (wf.steps.length) {
    lines.push("", "## Steps");
    for (const step of wf.steps) lines.push(...describeStep(step));
  }
  return lines.join("\n");
}

/**
 * Each line of `text`, its leading spaces kept and the rest shown exactly, after `indent`; more than two blank
 * lines in a row are shown as `[N blank lines]` (they could push what follows off the screen).
 */
function exactLines(text: string, indent: string): string[] {
  const out: string[] = [];
  let blank = 0;
  const flush = () => {
    out.push(...(blank > 2 ? [`${indent}[${blank} blank lines]`] : Array<string>(blank).fill("")));
    blank = 0;
  };
  for (const line of text.trimEnd().split("\n")) {
    if (!/[^ \t]/.test(line)) {
      blank++;
      continue;
    }
    flush();
    const lead = /^ */.exec(line)![0];
    out.push(`${indent}${lead}${exactText(line.slice(lead.length))}`);
  }
  flush();
  return out;
}

function describeStep(step: WorkflowStep): string[] {
  const head = `${step.index + 1}. [${step.kind}]${step.id ? ` (${exactText(step.id)})` : ""} `;
  const flags = [
    step.if ? `if ${exactText(step.if)}` : "",
    step.continueOnError ? "continueOnError" : "",
    step.timeoutMs ? `timeout ${step.timeoutMs} ms` : "",
    step.optional ? "optional" : "",
  ].filter(Boolean);
  const tail = flags.length ? `   (${flags.join(", ")})` : "";
  const title = (fallback: string) => exactText(step.title ?? fallback);
  switch (step.kind) {
    case "note":
      return [`${head}${title("")}${tail}`, ...(step.detail ? exactLines(step.detail, "   ") : [])];
    case "tool":
      return [`${head}${title(`tool ${step.tool}`)}${tail}`, `   ${exactText(step.tool)} ${exactText(visibleJson(step.input))}`];
    case "run":
      return [`${head}${title("shell")}${tail}`, `   $ ${exactText(step.run)}${step.cwd !== undefined ? `   (in ${exactText(step.cwd)})` : ""}`];
    case "prompt":
      return [`${head}${title("prompt")}${tail}`, ...exactLines(step.prompt, "   ")];
    case "workflow":
      return [`${head}${title(`workflow ${step.workflow}`)}${tail}`, `   ${exactText(step.workflow)} ${exactText(visibleJson(step.arguments))}`];
    case "command":
      return [`${head}${title(`/${step.command.name}`)}${tail}`, ...exactLines(step.command.template, "   ")];
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
