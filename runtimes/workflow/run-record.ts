import { open } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { readStateTail, type ResultRedactor, withFileLock, type WorktreeExitResult } from "../../core/index.js";
import type { WorkflowStep } from "../../manifests/workflow/workflow-schema.js";

/** Status of a whole run. */
export type RunStatus = "succeeded" | "failed" | "cancelled";

/** Status of one step: `skipped` when its `if` was falsy, an optional prompt had no model, or an earlier step ended the run. */
export type StepStatus = "succeeded" | "failed" | "skipped" | "cancelled";

/** One step of a run record. */
export interface StepRecord {
  index: number;
  key: string;
  kind: WorkflowStep["kind"];
  /** Human label, rendered (`Inspect diff: Read src/`, `$ npm run build`, `tool read_file`). */
  label: string;
  status: StepStatus;
  durationMs: number;
  /** Observation summary: code, phase, first part of the content. */
  code?: string;
  phase?: string;
  summary?: string;
  /** Tool called (tool and run steps). */
  tool?: string;
  /** Rendered input (tool), command (run), prompt text (prompt) or arguments (workflow). */
  rendered?: unknown;
  /** Why it failed or was skipped. */
  reason?: string;
  /** Unknown placeholders left literal. */
  missing?: string[];
  /** True when the step failed but `continueOnError` let the run go on. */
  continued?: boolean;
  artifacts?: { kind: string; path: string }[];
  /** Plugin guidance the call received (tool hooks), when there was any. */
  messages?: { beforeTool: string[]; afterResult: string[] };
  /** Nested workflow steps: the child run. */
  child?: WorkflowRunRecord;
}

/** One workflow run, appended to `.keel/state/workflow-runs.jsonl`. */
export interface WorkflowRunRecord {
  id: string;
  workflow: string;
  /** File the workflow was defined in. */
  source: string;
  status: RunStatus;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  arguments: Record<string, unknown>;
  /** The workflow's `prompt`, rendered with the arguments. */
  prompt?: string;
  steps: StepRecord[];
  /** Why the run failed or was cancelled. */
  error?: string;
  /** Set when the run was refused before any step ran, and why. */
  refused?: "arguments" | "trust" | "nesting" | "worktree" | "invocation";
  /** Placeholders that had no value anywhere in the run. */
  warnings: string[];
  worktree?: { name: string; path: string; branch: string; onFinish: string; result?: WorktreeExitResult };
  /** Nesting depth (0 for a top-level run). */
  depth: number;
  origin: string;
}

/** A fresh, time-ordered run id. */
export function newRunId(): string {
  return `wfr_${Date.now().toString(36)}${randomBytes(3).toString("hex")}`;
}

/**
 * `record` with every secret `redactor` knows shown as `***` (arguments, rendered inputs, labels, the
 * prompt, nested runs), or `record` itself when it holds none or there is no redactor. A record whose
 * secret cannot be hidden in place keeps its identity and outcome only, with a warning saying why. Never throws.
 */
export function redactRunRecord(record: WorkflowRunRecord, redactor: ResultRedactor | undefined): WorkflowRunRecord {
  if (!redactor) return record;
  const hidden = redactor.data(record);
  if (hidden === record) return record;
  if (isRunRecord(hidden)) return hidden;
  // (a secret spanning the JSON structure: nothing of the details is kept)
  return {
    ...record,
    arguments: {},
    prompt: undefined,
    error: record.error === undefined ? undefined : redactor.text(record.error),
    steps: record.steps.map((s) => ({ index: s.index, key: s.key, kind: s.kind, label: `step ${s.key}`, status: s.status, durationMs: s.durationMs })),
    warnings: ["The details of this run were left out: they held a secret that could not be hidden as ***."],
    worktree: (redactor.data(record.worktree) ?? undefined) as WorkflowRunRecord["worktree"],
  };
}

/**
 * Appends one record as a JSON line under the file's lock. A history ending in a torn line (keel killed
 * mid-append) gets that line ended first, so the record starts on a line of its own and is read back. A failed
 * append (a full disk) is cut back: the history is left as it was, and the error thrown.
 */
export async function appendRunRecord(file: string, record: WorkflowRunRecord): Promise<void> {
  await withFileLock(file, async () => {
    const handle = await open(file, "a+");
    try {
      const { size } = await handle.stat();
      const last = Buffer.alloc(1);
      const torn = size > 0 && (await handle.read(last, 0, 1, size - 1)).bytesRead === 1 && last[0] !== 0x0a;
      await handle.appendFile((torn ? "\n" : "") + JSON.stringify(record) + "\n", "utf8").catch(async (error: unknown) => {
        // A disk that filled up mid-line: no part of the record stays (the history is as it was).
        await handle.truncate(size).catch(() => undefined);
        throw error;
      });
    } finally {
      await handle.close();
    }
  });
}

/** How much of the end of the run history `readRunRecords` reads (thousands of runs: `keel workflow runs` shows the newest). */
const RUNS_TAIL_BYTES = 16 * 1024 * 1024;

/**
 * Reads run records (those in the last RUNS_TAIL_BYTES of the file: a long history is never read whole), newest last; torn lines, and lines that are not a run record as keel writes one
 * (a repository can commit the file: `null`, a record whose `steps` is not a list), are skipped.
 * Missing file → [].
 */
export async function readRunRecords(file: string): Promise<WorkflowRunRecord[]> {
  const text = (await readStateTail(file, RUNS_TAIL_BYTES).catch(() => undefined)) ?? "";
  const out: WorkflowRunRecord[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      const record: unknown = JSON.parse(line);
      if (isRunRecord(record)) out.push(record);
    } catch {
      // torn line from a crash mid-write: tolerated
    }
  }
  return out;
}

/** True when `value` has the fields `keel workflow runs` shows, of the types keel writes. Never throws. */
function isRunRecord(value: unknown): value is WorkflowRunRecord {
  const r = value as Partial<WorkflowRunRecord> | null;
  return (
    r !== null &&
    typeof r === "object" &&
    !Array.isArray(r) &&
    typeof r.id === "string" &&
    typeof r.workflow === "string" &&
    typeof r.status === "string" &&
    typeof r.startedAt === "string" &&
    typeof r.durationMs === "number" &&
    (r.error === undefined || typeof r.error === "string") &&
    Array.isArray(r.steps) &&
    r.steps.every((step) => step !== null && typeof step === "object" && typeof step.status === "string")
  );
}
