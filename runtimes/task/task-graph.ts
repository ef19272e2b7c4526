import { ToolError } from "../../core/index.js";
import { isResolved, type Task } from "./task-types.js";

/**
 * Checks and normalises the dependency graph in place: no duplicate ids, no self or dangling
 * references, no cycles; `blocks` is re-derived from every `blocked_by`. Throws ToolError
 * (precondition_failed) with a message saying how to fix the call.
 */
export function normalizeGraph(tasks: Task[]): void {
  const byId = new Map<string, Task>();
  for (const task of tasks) {
    if (byId.has(task.id))
      throw new ToolError(
        `Duplicate task id "${task.id}": ids must be unique. Pick another task_id or update the existing task with task_update.`,
        "precondition_failed",
      );
    byId.set(task.id, task);
  }
  for (const task of tasks) {
    task.blocked_by = [...new Set(task.blocked_by)];
    if (task.blocked_by.includes(task.id))
      throw new ToolError(`Task "${task.id}" cannot depend on itself: remove "${task.id}" from its blocked_by/blocks.`, "precondition_failed");
    const missing = task.blocked_by.filter((id) => !byId.has(id));
    if (missing.length)
      throw new ToolError(
        `Task "${task.id}" refers to unknown task id(s) ${missing.map((m) => `"${m}"`).join(", ")} in its dependencies. Create those tasks first, or remove them from blocked_by/blocks (task_list, \`keel task list\`, shows existing ids).`,
        "precondition_failed",
      );
  }
  const cycle = findCycle(tasks, byId);
  if (cycle)
    throw new ToolError(
      `Dependency cycle: ${cycle.join(" → ")}. A task cannot (indirectly) wait for itself; remove one of these blocked_by/blocks links.`,
      "precondition_failed",
    );
  for (const task of tasks) task.blocks = [];
  for (const task of tasks) for (const dep of task.blocked_by) byId.get(dep)!.blocks.push(task.id);
}

/** Adds `from` to the `blocked_by` of every task in `targets` (the reverse of a `blocks` list). */
export function applyBlocks(tasks: Task[], from: string, targets: string[]): void {
  for (const id of targets) {
    const target = tasks.find((t) => t.id === id);
    if (!target) throw new ToolError(`Task "${from}" cannot block unknown task "${id}". Create it first or remove it from blocks.`, "precondition_failed");
    if (!target.blocked_by.includes(from)) target.blocked_by.push(from);
  }
}

/** The tasks by id, for the dependency lookups below (one map per list: a lookup per dependency stays O(1)). */
export function tasksById(tasks: Task[]): ReadonlyMap<string, Task> {
  return new Map(tasks.map((t) => [t.id, t]));
}

/** Ids of a task's dependencies that are neither completed nor cancelled. */
export function unresolvedDeps(task: Task, byId: ReadonlyMap<string, Task>): string[] {
  return task.blocked_by.filter((id) => {
    const dep = byId.get(id);
    return dep !== undefined && !isResolved(dep.status);
  });
}

/** Actionable: in progress, or pending with every dependency completed or cancelled. */
export function isActionable(task: Task, byId: ReadonlyMap<string, Task>): boolean {
  if (task.status === "in_progress") return true;
  return task.status === "pending" && unresolvedDeps(task, byId).length === 0;
}

/**
 * After `id` was completed or cancelled: tasks blocked with `waiting_on:` move back to
 * `pending` when nothing else holds them, else their reason lists what remains. Returns moved ids.
 */
export function releaseDependents(tasks: Task[], id: string, now: string): string[] {
  const released: string[] = [];
  const byId = tasksById(tasks);
  for (const task of tasks) {
    if (!task.blocked_by.includes(id) || task.status !== "blocked" || !task.reason?.startsWith("waiting_on:")) continue;
    const remaining = unresolvedDeps(task, byId);
    task.updated_at = now;
    if (remaining.length === 0) {
      task.status = "pending";
      delete task.reason;
      released.push(task.id);
    } else task.reason = waitingOn(remaining);
  }
  return released;
}

/** The reason recorded for a task waiting on dependencies. */
export function waitingOn(ids: string[]): string {
  return `waiting_on:${ids.join(",")}`;
}

function findCycle(tasks: Task[], byId: Map<string, Task>): string[] | undefined {
  const state = new Map<string, 1 | 2>();
  const stack: string[] = [];
  const visit = (id: string): string[] | undefined => {
    state.set(id, 1);
    stack.push(id);
    for (const dep of byId.get(id)?.blocked_by ?? []) {
      if (state.get(dep) === 1) return [...stack.slice(stack.indexOf(dep)), dep];
      if (!state.has(dep)) {
        const found = visit(dep);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(id, 2);
    return undefined;
  };
  for (const task of tasks) {
    if (state.has(task.id)) continue;
    const found = visit(task.id);
    if (found) return found;
  }
  return undefined;
}
