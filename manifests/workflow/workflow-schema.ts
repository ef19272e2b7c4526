import { z } from "zod";
import type { PromptCommand } from "../commands/prompt-command.js";
import { hiddenCharacterProblem } from "../identifier-text.js";
import { jsonType } from "../json-type.js";

/** Deepest nesting of `workflow` steps (a workflow calling a workflow calling ...). */
export const MAX_WORKFLOW_DEPTH = 8;

/** What to do with a workflow's managed worktree when the run ends. */
export type WorktreeFinish = "keep" | "merge" | "discard";

/** Fields every step kind shares. */
export interface StepCommon {
  /** 0-based position in `steps`. */
  index: number;
  /** Key under which later steps see this one: `id`, else the 1-based position as text. */
  key: string;
  id?: string;
  title?: string;
  continueOnError: boolean;
  timeoutMs?: number;
  /** Reference to a value (`steps.check.ok`, `!dry_run`); the step runs only when it is truthy. */
  if?: string;
  /** Prompt steps: skip instead of failing when no model is configured. */
  optional: boolean;
  /** JSON path of the step in its file, for messages. */
  path: string;
}

/** A note: recorded, never executed (a string step, or `{title, detail}`). */
export interface NoteStep extends StepCommon {
  kind: "note";
  title: string;
  detail?: string;
}
/** One tool call through the pipeline. */
export interface ToolStep extends StepCommon {
  kind: "tool";
  tool: string;
  input: unknown;
}
/** A shell command through the `bash` tool. */
export interface RunStep extends StepCommon {
  kind: "run";
  run: string;
  cwd?: string;
}
/** A model turn through the agent service. */
export interface PromptStep extends StepCommon {
  kind: "prompt";
  prompt: string;
}
/** A nested workflow. */
export interface WorkflowCallStep extends StepCommon {
  kind: "workflow";
  workflow: string;
  arguments: Record<string, unknown>;
}

/** A prompt command (Claude Code `.md`, Gemini CLI `.toml`): rendered with the run's `arguments`, then a model turn. Never written in a workflow file: a command becomes a one-step workflow. */
export interface CommandStep extends StepCommon {
  kind: "command";
  command: PromptCommand;
}

/** Any parsed step. */
export type WorkflowStep = NoteStep | ToolStep | RunStep | PromptStep | WorkflowCallStep | CommandStep;

/** Where a workflow was defined; decides whether its shell steps need the workspace trusted. */
export interface WorkflowOrigin {
  /** `command`: a prompt command file (`.claude/commands/*.md`, `.gemini/commands/*.toml`, a plugin's `commands/`). */
  kind: "file" | "plugin" | "command";
  /** Absolute path of the file it came from. */
  file: string;
  /** JSON path of the workflow in that file. */
  path: string;
  plugin?: string;
  /** True for definitions outside the workspace (user-level plugins): trusted without `keel trust`. */
  userLevel: boolean;
}

/** A parsed, validated workflow. */
export interface WorkflowDefinition {
  name: string;
  description?: string;
  /** JSON Schema of the arguments, validated before any step runs. */
  parameters?: Record<string, unknown>;
  /** Instruction text for whoever runs the workflow (rendered with the arguments, recorded in the run). */
  prompt?: string;
  /** Run inside a fresh managed worktree, finished with `onFinish`. */
  worktree?: { onFinish: WorktreeFinish };
  steps: WorkflowStep[];
  metadata: Record<string, unknown>;
  origin: WorkflowOrigin;
}

const text = (what = "a string") =>
  z
    .string({ error: (i) => `must be ${what} (got ${jsonType(i.input)})` })
    .trim()
    .min(1, { error: "must not be empty" });
const onFinish = z.enum(["keep", "merge", "discard"], { error: "must be one of keep, merge, discard" });
const timeout = z
  .number({ error: (i) => `must be a number of milliseconds (got ${jsonType(i.input)})` })
  .int({ error: (i) => `must be a whole number of milliseconds (got ${String(i.input)})` })
  .positive({ error: (i) => `must be more than 0 milliseconds (got ${String(i.input)})` })
  .max(86_400_000, { error: (i) => `must be at most 86400000 milliseconds, 24 hours (got ${String(i.input)})` });
const flag = z.boolean({ error: (i) => `must be true or false (got ${jsonType(i.input)})` });

/** The top level of one workflow object (steps are parsed one by one). */
export const workflowHeaderSchema = z
  .object({
    name: text()
      .regex(/^[^\s/\\]+$/, { error: "must not contain whitespace or slashes" })
      .superRefine((name, ctx) => {
        const problem = hiddenCharacterProblem(name);
        if (problem) ctx.addIssue({ code: "custom", message: problem });
      }),
    description: z.string({ error: (i) => `must be a string (got ${jsonType(i.input)})` }).optional(),
    parameters: z.record(z.string(), z.unknown(), { error: (i) => `must be a JSON Schema object (got ${jsonType(i.input)})` }).optional(),
    prompt: z.string({ error: (i) => `must be a string (got ${jsonType(i.input)})` }).optional(),
    worktree: z
      .union([flag, z.object({ onFinish: onFinish.optional(), on_finish: onFinish.optional() }).loose()], {
        error: 'must be true, false or {"onFinish": "keep|merge|discard"}',
      })
      .optional(),
    onFinish: onFinish.optional(),
    on_finish: onFinish.optional(),
    steps: z.array(z.unknown(), { error: (i) => `must be a list of steps (got ${jsonType(i.input)})` }).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .loose();

/** Keys a workflow object may have; others are ignored with a warning. */
export const WORKFLOW_KEYS = new Set(["name", "description", "parameters", "prompt", "worktree", "onFinish", "on_finish", "steps", "metadata"]);

/** Keys a step object may have; others are ignored with a warning. */
export const STEP_KEYS = new Set([
  "id",
  "title",
  "name",
  "detail",
  "description",
  "command",
  "tool",
  "input",
  "run",
  "cwd",
  "prompt",
  "workflow",
  "arguments",
  "args",
  "continueOnError",
  "continue_on_error",
  "timeoutMs",
  "timeout_ms",
  "if",
  "optional",
]);

/** Fields of a step object (the kind is decided from which of tool/run/prompt/workflow is present). */
export const stepObjectSchema = z
  .object({
    id: text()
      .regex(/^[A-Za-z0-9_$-]+$/, { error: "must use only letters, digits, _, $ and -" })
      .optional(),
    title: text().optional(),
    name: text().optional(),
    detail: z.string({ error: (i) => `must be a string (got ${jsonType(i.input)})` }).optional(),
    description: z.string().optional(),
    command: z.string({ error: (i) => `must be a string (got ${jsonType(i.input)})` }).optional(),
    tool: text("a tool name").optional(),
    input: z.unknown().optional(),
    run: text("a shell command").optional(),
    cwd: text().optional(),
    prompt: text().optional(),
    workflow: text("a workflow name").optional(),
    arguments: z.record(z.string(), z.unknown(), { error: (i) => `must be an object (got ${jsonType(i.input)})` }).optional(),
    args: z.record(z.string(), z.unknown(), { error: (i) => `must be an object (got ${jsonType(i.input)})` }).optional(),
    continueOnError: flag.optional(),
    continue_on_error: flag.optional(),
    timeoutMs: timeout.optional(),
    timeout_ms: timeout.optional(),
    if: text("a reference such as steps.check.ok").optional(),
    optional: flag.optional(),
  })
  .loose();
