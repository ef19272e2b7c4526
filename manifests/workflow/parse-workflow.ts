import type { z } from "zod";
import { BASH_MAX_TIMEOUT_MS } from "../../core/index.js";
import { jsonType } from "../json-type.js";
import { formatJsonPath } from "../plugin/json-path.js";
import {
  STEP_KEYS,
  WORKFLOW_KEYS,
  stepObjectSchema,
  workflowHeaderSchema,
  type StepCommon,
  type WorkflowDefinition,
  type WorkflowOrigin,
  type WorkflowStep,
} from "./workflow-schema.js";

/** A problem found in a workflow definition: severity, JSON path inside the file, and reason. */
export interface WorkflowIssue {
  severity: "error" | "warning" | "info";
  path: string;
  message: string;
}

/** Outcome of parsing one workflow object: the workflow (absent when it cannot run) and every issue. */
export interface ParsedWorkflow {
  workflow?: WorkflowDefinition;
  issues: WorkflowIssue[];
}

const KINDS = ["tool", "run", "prompt", "workflow"] as const;

/**
 * Parses one raw workflow object found at JSON path `at` of a file. Never throws. A workflow with
 * an invalid field or step is not loaded (error issue naming the path and reason), so a run never
 * silently skips a step; unknown keys are ignored with a warning.
 */
export function parseWorkflow(raw: unknown, at: ReadonlyArray<PropertyKey>, origin: Omit<WorkflowOrigin, "path">): ParsedWorkflow {
  const issues: WorkflowIssue[] = [];
  const where = formatJsonPath(at);
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    issues.push({ severity: "error", path: where, message: `A workflow must be a JSON object (got ${jsonType(raw)}); it was skipped.` });
    return { issues };
  }
  const header = workflowHeaderSchema.safeParse(raw);
  if (!header.success) {
    report(issues, at, header.error, "the workflow was not loaded");
    return { issues };
  }
  const h = header.data;
  for (const key of Object.keys(raw)) {
    if (!WORKFLOW_KEYS.has(key))
      issues.push({
        severity: "warning",
        path: formatJsonPath([...at, key]),
        message: `Unknown workflow field "${key}" was ignored (known: ${[...WORKFLOW_KEYS].join(", ")}).`,
      });
  }
  const steps: WorkflowStep[] = [];
  let broken = false;
  (h.steps ?? []).forEach((item, index) => {
    const step = parseStep(item, index, [...at, "steps", index], issues);
    if (step) steps.push(step);
    else broken = true;
  });
  const keys = new Set<string>();
  for (const s of steps) {
    if (keys.has(s.key)) {
      issues.push({ severity: "error", path: s.path, message: `Step id "${s.key}" is used twice in workflow "${h.name}"; the workflow was not loaded.` });
      broken = true;
    }
    keys.add(s.key);
  }
  if (broken) return { issues };
  const wt = h.worktree;
  const finish = (typeof wt === "object" ? (wt.onFinish ?? wt.on_finish) : undefined) ?? h.onFinish ?? h.on_finish ?? "keep";
  if (!wt && (h.onFinish || h.on_finish))
    issues.push({ severity: "warning", path: formatJsonPath([...at, "onFinish"]), message: `onFinish has no effect without "worktree": true.` });
  const description = h.description?.trim() || undefined;
  const prompt = h.prompt?.trim() || undefined;
  return {
    issues,
    workflow: {
      name: h.name,
      description,
      parameters: h.parameters,
      prompt,
      worktree: wt ? { onFinish: finish } : undefined,
      steps,
      metadata: h.metadata ?? {},
      origin: { ...origin, path: where },
    },
  };
}

function parseStep(item: unknown, index: number, at: PropertyKey[], issues: WorkflowIssue[]): WorkflowStep | undefined {
  const path = formatJsonPath(at);
  const common = (extra: Partial<StepCommon> = {}): StepCommon => ({ index, key: String(index + 1), continueOnError: false, optional: false, path, ...extra });
  if (typeof item === "string") {
    if (!item.trim()) {
      issues.push({ severity: "error", path, message: "A step must not be an empty string; the workflow was not loaded." });
      return undefined;
    }
    return { ...common(), kind: "note", title: item.trim() };
  }
  if (item === null || typeof item !== "object" || Array.isArray(item)) {
    issues.push({ severity: "error", path, message: `A step must be a string or an object (got ${jsonType(item)}); the workflow was not loaded.` });
    return undefined;
  }
  const parsed = stepObjectSchema.safeParse(item);
  if (!parsed.success) {
    report(issues, at, parsed.error, "the workflow was not loaded");
    return undefined;
  }
  const s = parsed.data;
  for (const key of Object.keys(item))
    if (!STEP_KEYS.has(key)) issues.push({ severity: "warning", path: formatJsonPath([...at, key]), message: `Unknown step field "${key}" was ignored.` });
  const kinds = KINDS.filter((k) => s[k] !== undefined);
  if (kinds.length > 1) {
    issues.push({
      severity: "error",
      path,
      message: `A step has exactly one of tool, run, prompt, workflow; this one has ${kinds.join(" and ")}. The workflow was not loaded.`,
    });
    return undefined;
  }
  const title = s.title ?? s.name;
  const base = common({
    id: s.id,
    key: s.id ?? String(index + 1),
    title,
    continueOnError: s.continueOnError ?? s.continue_on_error ?? false,
    timeoutMs: s.timeoutMs ?? s.timeout_ms,
    if: s.if,
    optional: s.optional ?? false,
  });
  const misplaced = (field: string, kind: string) =>
    issues.push({ severity: "warning", path: formatJsonPath([...at, field]), message: `"${field}" is only used by ${kind} steps; it was ignored.` });
  if (s.input !== undefined && s.tool === undefined) misplaced("input", "tool");
  if (s.cwd !== undefined && s.run === undefined) misplaced("cwd", "run");
  if ((s.arguments ?? s.args) !== undefined && s.workflow === undefined) misplaced("arguments", "workflow");
  switch (kinds[0]) {
    case "tool":
      return { ...base, kind: "tool", tool: s.tool!, input: s.input ?? {} };
    case "run":
      if (base.timeoutMs !== undefined && base.timeoutMs > BASH_MAX_TIMEOUT_MS) {
        const field = s.timeoutMs !== undefined ? "timeoutMs" : "timeout_ms";
        issues.push({
          severity: "warning",
          path: formatJsonPath([...at, field]),
          message: `${field} is ${base.timeoutMs} ms, more than bash's maximum of ${BASH_MAX_TIMEOUT_MS} ms: the command is stopped after ${BASH_MAX_TIMEOUT_MS} ms. Set at most ${BASH_MAX_TIMEOUT_MS}, or split the command into steps.`,
        });
      }
      return { ...base, kind: "run", run: s.run!, cwd: s.cwd };
    case "prompt":
      return { ...base, kind: "prompt", prompt: s.prompt! };
    case "workflow":
      return { ...base, kind: "workflow", workflow: s.workflow!, arguments: s.arguments ?? s.args ?? {} };
    default: {
      if (!title) {
        issues.push({ severity: "error", path, message: "A step needs one of tool, run, prompt, workflow, or a title (a note); the workflow was not loaded." });
        return undefined;
      }
      if (s.command !== undefined)
        issues.push({
          severity: "info",
          path: formatJsonPath([...at, "command"]),
          message: `"command" is recorded as the note's detail, not executed; use "run" to execute it.`,
        });
      const detail = s.detail ?? s.command ?? s.description;
      return { ...base, kind: "note", title, detail: detail?.trim() || undefined };
    }
  }
}

function report(issues: WorkflowIssue[], at: ReadonlyArray<PropertyKey>, error: z.ZodError, consequence: string): void {
  for (const issue of error.issues) {
    const path = formatJsonPath([...at, ...(issue.path as PropertyKey[])]);
    issues.push({
      severity: "error",
      path,
      message: `${issue.path.length ? `${String(issue.path[issue.path.length - 1])} ` : ""}${issue.message}; ${consequence}.`,
    });
  }
}
