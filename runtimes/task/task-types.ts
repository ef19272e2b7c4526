import { ToolError } from "../../core/index.js";

/** The five task states. */
export const TASK_STATUSES = ["pending", "in_progress", "completed", "blocked", "cancelled"] as const;

/** A task state. */
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** Accepted spellings of a status (reference-host aliases included); anything else is an error. */
export const STATUS_ALIASES: Record<string, TaskStatus> = {
  pending: "pending",
  todo: "pending",
  open: "pending",
  in_progress: "in_progress",
  completed: "completed",
  done: "completed",
  complete: "completed",
  blocked: "blocked",
  cancelled: "cancelled",
};

/** Priorities, most urgent first. */
export const TASK_PRIORITIES = ["critical", "high", "medium", "low"] as const;

/** A task priority. */
export type TaskPriority = (typeof TASK_PRIORITIES)[number];

/** One task as stored in `.keel/state/tasks.json`. `blocks` is derived from every task's `blocked_by`. */
export interface Task {
  id: string;
  title: string;
  description: string;
  status: TaskStatus;
  priority: TaskPriority;
  active_form?: string;
  owner?: string;
  /** Ids of tasks that wait for this one (derived, kept in sync). */
  blocks: string[];
  /** Ids of tasks this one waits for. */
  blocked_by: string[];
  /** Why the task is blocked or cancelled (`waiting_on:<ids>` when waiting on dependencies). */
  reason?: string;
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

/** The tasks state file. `seq` numbers generated ids (`task_<seq>`). */
export interface TaskState {
  version: 1;
  seq: number;
  tasks: Task[];
}

/** Fields a caller may give when creating a task. */
export interface TaskInput {
  title: string;
  description?: string;
  status?: string;
  priority?: string;
  task_id?: string;
  active_form?: string;
  owner?: string;
  blocks?: string[];
  blocked_by?: string[];
  metadata?: Record<string, unknown>;
}

/** Fields `task_update` may change (lists replace, metadata merges; a `null` metadata value removes the key). */
export interface TaskPatch {
  title?: string;
  description?: string;
  status?: string;
  priority?: string;
  active_form?: string;
  owner?: string;
  blocks?: string[];
  blocked_by?: string[];
  metadata?: Record<string, unknown>;
  reason?: string;
}

/** Status text for error messages. */
export const STATUS_HELP = "use one of pending, in_progress, completed, blocked, cancelled (aliases: todo/open → pending, done/complete → completed)";

/** Resolves a status or alias; throws ToolError (schema_invalid) for anything else. */
export function normalizeStatus(value: string, field = "status"): TaskStatus {
  const status = Object.hasOwn(STATUS_ALIASES, value) ? STATUS_ALIASES[value] : undefined;
  if (!status) throw new ToolError(`Unknown ${field} ${JSON.stringify(value)}: ${STATUS_HELP}.`, "schema_invalid");
  return status;
}

/** Resolves a priority (default `medium`); throws ToolError for an unknown one. */
export function normalizePriority(value: string | undefined): TaskPriority {
  if (value === undefined) return "medium";
  if ((TASK_PRIORITIES as readonly string[]).includes(value)) return value as TaskPriority;
  throw new ToolError(`Unknown priority ${JSON.stringify(value)}: use one of ${TASK_PRIORITIES.join(", ")}.`, "schema_invalid");
}

/** True when a dependency no longer holds anything up. */
export function isResolved(status: TaskStatus): boolean {
  return status === "completed" || status === "cancelled";
}

/** Every status spelling accepted in schemas (states plus aliases). */
export const STATUS_ENUM = Object.keys(STATUS_ALIASES);

/** Task ids: letters, digits, `_`, `-`, `.`, `:`; 1–100 characters. */
export const TASK_ID_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$";

/** Metadata key marking a task the plan runtime created and may change or delete. */
export const PLAN_OWNED_KEY = "plan_owned";

/** True for tasks synced from the plan (`metadata.plan_owned === true`). */
export function isPlanOwned(task: Task): boolean {
  return task.metadata?.[PLAN_OWNED_KEY] === true;
}
