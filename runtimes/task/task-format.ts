import { exactText } from "../../core/cli/index.js";
import { visibleJson } from "../../core/index.js";
import type { Task } from "./task-types.js";

const MARK: Record<Task["status"], string> = {
  pending: "[ ]",
  in_progress: "[~]",
  completed: "[x]",
  blocked: "[!]",
  cancelled: "[-]",
};

/**
 * One line per task: `[~] id  title (status, owner; blocked_by: a,b; reason)`. Its text fields are
 * shown exactly (`exactText`): a title with a newline (a repository can commit tasks.json) cannot fake
 * another task's line.
 */
export function formatTaskLine(task: Task): string {
  const bits: string[] = [task.status];
  if (task.priority !== "medium") bits.push(`priority ${task.priority}`);
  if (task.owner) bits.push(`owner ${exactText(String(task.owner))}`);
  if (task.blocked_by.length) bits.push(`blocked_by: ${task.blocked_by.join(",")}`);
  if (task.reason) bits.push(`reason: ${exactText(String(task.reason))}`);
  return `${MARK[task.status]} ${task.id}  ${exactText(task.title)} (${bits.join("; ")})`;
}

/** A task list as text, with a header counting what is shown. */
export function formatTaskList(tasks: Task[], total: number, empty = "No tasks."): string {
  if (total === 0) return empty;
  const head = tasks.length < total ? `${tasks.length} of ${total} tasks:` : `${total} task${total === 1 ? "" : "s"}:`;
  return [head, ...tasks.map(formatTaskLine)].join("\n");
}

/** A single task in full. */
export function formatTask(task: Task): string {
  const lines = [formatTaskLine(task)];
  if (task.description) lines.push(`  description: ${String(task.description).split("\n").join("\n    ")}`);
  if (task.active_form) lines.push(`  active_form: ${exactText(String(task.active_form))}`);
  if (task.blocks.length) lines.push(`  blocks: ${task.blocks.join(", ")}`);
  if (task.metadata && typeof task.metadata === "object" && Object.keys(task.metadata).length) lines.push(`  metadata: ${visibleJson(task.metadata)}`);
  lines.push(`  created ${exactText(String(task.created_at))}, updated ${exactText(String(task.updated_at))}`);
  return lines.join("\n");
}
