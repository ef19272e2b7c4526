import { ToolError } from "../../core/index.js";
import { normalizeGraph } from "../task/task-graph.js";
import { addTask } from "../task/task-store.js";
import { isPlanOwned, normalizePriority, normalizeStatus, PLAN_OWNED_KEY, type Task, type TaskState } from "../task/task-types.js";

/** One plan step as given to `update_plan`. */
export interface PlanItemInput {
  step: string;
  status?: string;
  task_id?: string;
  description?: string;
  priority?: string;
  active_form?: string;
  owner?: string;
  /** Other steps: 1-based step numbers, their task_id, or their exact step text. */
  depends_on?: (string | number)[];
}

/** One plan step as stored: status normalised, task id fixed, dependencies resolved to task ids. */
export interface PlanItem {
  step: string;
  status: Task["status"];
  task_id: string;
  description?: string;
  priority?: Task["priority"];
  active_form?: string;
  owner?: string;
  depends_on: string[];
}

/**
 * Normalises plan items: statuses and priorities checked, ids `plan_<n>` unless given, duplicate
 * ids rejected, `depends_on` resolved and checked for dangling entries and cycles.
 */
export function normalizePlanItems(inputs: PlanItemInput[]): PlanItem[] {
  const items: PlanItem[] = inputs.map((input, i) => ({
    step: input.step,
    status: normalizeStatus(input.status ?? "pending", `status of step ${i + 1}`),
    task_id: input.task_id ?? `plan_${i + 1}`,
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.priority !== undefined ? { priority: normalizePriority(input.priority) } : {}),
    ...(input.active_form !== undefined ? { active_form: input.active_form } : {}),
    ...(input.owner !== undefined ? { owner: input.owner } : {}),
    depends_on: [],
  }));
  const seen = new Set<string>();
  for (const item of items) {
    if (seen.has(item.task_id))
      throw new ToolError(
        `Two plan steps use the task id "${item.task_id}": give each step its own task_id (or omit it to get plan_<n>).`,
        "precondition_failed",
      );
    seen.add(item.task_id);
  }
  inputs.forEach((input, i) => {
    items[i]!.depends_on = [...new Set((input.depends_on ?? []).map((ref) => resolveRef(items, ref, i)))];
  });
  normalizeGraph(items.map((item) => pseudoTask(item)));
  return items;
}

/**
 * Makes the tasks match the plan, touching only tasks the plan owns: creates or updates one
 * task per step, deletes plan-owned tasks no longer in the plan. A step whose id belongs to a
 * hand-made task, or a hand-made task depending on a task being removed, is an error.
 */
export function syncPlanTasks(state: TaskState, items: PlanItem[], now: string): { created: string[]; updated: string[]; removed: string[] } {
  const wanted = new Set(items.map((i) => i.task_id));
  for (const item of items) {
    const existing = state.tasks.find((t) => t.id === item.task_id);
    if (existing && !isPlanOwned(existing))
      throw new ToolError(
        `Task "${item.task_id}" already exists and was not created by the plan; the plan never changes such tasks. Give step "${item.step}" another task_id (or omit it to get plan_<n>).`,
        "precondition_failed",
      );
  }
  const removed = removePlanTasks(state, (t) => !wanted.has(t.id));
  const created: string[] = [];
  const updated: string[] = [];
  items.forEach((item, i) => {
    let task = state.tasks.find((t) => t.id === item.task_id);
    if (task) updated.push(task.id);
    else {
      task = addTask(state, { title: item.step, task_id: item.task_id }, now, false);
      created.push(task.id);
    }
    task.title = item.step;
    task.description = item.description ?? "";
    task.status = item.status;
    task.priority = item.priority ?? "medium";
    if (item.active_form !== undefined) task.active_form = item.active_form;
    else delete task.active_form;
    if (item.owner !== undefined) task.owner = item.owner;
    else delete task.owner;
    delete task.reason;
    task.blocked_by = [...item.depends_on];
    task.metadata = { ...task.metadata, [PLAN_OWNED_KEY]: true, plan_step: i + 1 };
    task.updated_at = now;
  });
  return { created, updated, removed };
}

/** Deletes plan-owned tasks matching `which`; refuses when a task outside the plan depends on one. */
export function removePlanTasks(state: TaskState, which: (t: Task) => boolean): string[] {
  const doomed = new Set(state.tasks.filter((t) => isPlanOwned(t) && which(t)).map((t) => t.id));
  for (const task of state.tasks) {
    if (doomed.has(task.id) || isPlanOwned(task)) continue;
    const hit = task.blocked_by.find((id) => doomed.has(id));
    if (hit)
      throw new ToolError(
        `Task "${task.id}" (not created by the plan) depends on plan task "${hit}", which this change would delete. Remove that dependency first: task_update {"task_id": "${task.id}", "blocked_by": [...]}.`,
        "precondition_failed",
      );
  }
  state.tasks = state.tasks.filter((t) => !doomed.has(t.id));
  for (const task of state.tasks) task.blocked_by = task.blocked_by.filter((id) => !doomed.has(id));
  return [...doomed];
}

function resolveRef(items: PlanItem[], ref: string | number, self: number): string {
  let target: PlanItem | undefined;
  if (typeof ref === "number") target = items[ref - 1];
  else target = items.find((i) => i.task_id === ref) ?? items.find((i) => i.step === ref) ?? (/^\d+$/.test(ref) ? items[Number(ref) - 1] : undefined);
  if (!target)
    throw new ToolError(
      `depends_on ${JSON.stringify(ref)} of step ${self + 1} matches no step of this plan: use a step number (1-${items.length}), a step's task_id, or its exact step text.`,
      "precondition_failed",
    );
  if (target === items[self])
    throw new ToolError(`Step ${self + 1} cannot depend on itself: remove ${JSON.stringify(ref)} from its depends_on.`, "precondition_failed");
  return target.task_id;
}

function pseudoTask(item: PlanItem): Task {
  return {
    id: item.task_id,
    title: item.step,
    description: "",
    status: item.status,
    priority: "medium",
    blocks: [],
    blocked_by: [...item.depends_on],
    metadata: {},
    created_at: "",
    updated_at: "",
  };
}
