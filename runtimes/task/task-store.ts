import { readJsonState, StateError, ToolError, updateJsonState } from "../../core/index.js";
import { applyBlocks, isActionable, normalizeGraph, releaseDependents, tasksById, unresolvedDeps, waitingOn } from "./task-graph.js";
import {
  normalizePriority,
  normalizeStatus,
  type Task,
  type TaskInput,
  type TaskPatch,
  type TaskState,
  type TaskStatus,
  TASK_ID_PATTERN,
  TASK_PRIORITIES,
  TASK_STATUSES,
} from "./task-types.js";

/** Largest `seq` kept from a stored task list (ids `task_<n>` stay exact integers, well inside TASK_ID_PATTERN). */
const MAX_SEQ = 1e15;

/** Filters of `task_list`. */
export interface TaskFilter {
  status?: string;
  owner?: string;
  actionable_only?: boolean;
  max_tasks?: number;
}

/** Runs `fn`, turning a StateError (unparseable or locked state file) into a ToolError naming the file. */
export async function asToolError<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof StateError) throw new ToolError(error.message, "execution_failed", null, { file: error.file });
    throw error;
  }
}

/** An empty task state. */
export function emptyTaskState(): TaskState {
  return { version: 1, seq: 0, tasks: [] };
}

/**
 * The task list in one JSON file. Every mutation runs under the file's lock and is written
 * atomically; an unparseable file is never overwritten (the call fails naming the file).
 */
export class TaskStore {
  constructor(
    /** Absolute path of `tasks.json`. */
    readonly file: string,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** The current state (missing file → empty). Throws ToolError for an unparseable file. */
  async read(): Promise<TaskState> {
    return asToolError(async () => checkShape(await readJsonState<TaskState>(this.file, emptyTaskState()), this.file));
  }

  /**
   * Locked read-modify-write. `fn` changes `state` in place and returns a result; the graph is
   * checked and the file written only when `fn` returns without throwing.
   */
  async mutate<R>(fn: (state: TaskState, now: string) => R): Promise<R> {
    return asToolError(() =>
      updateJsonState<TaskState, R>(this.file, emptyTaskState(), (current) => {
        const state = checkShape(current, this.file);
        const result = fn(state, this.clock().toISOString());
        normalizeGraph(state.tasks);
        return { value: state, result };
      }),
    );
  }

  /** Tasks matching the filter, in creation order. */
  async list(filter: TaskFilter = {}): Promise<{ tasks: Task[]; total: number; all: Task[] }> {
    const { tasks } = await this.read();
    const status = filter.status === undefined ? undefined : normalizeStatus(filter.status);
    const byId = tasksById(tasks);
    const hits = tasks.filter(
      (t) => (!status || t.status === status) && (!filter.owner || t.owner === filter.owner) && (!filter.actionable_only || isActionable(t, byId)),
    );
    return { tasks: filter.max_tasks ? hits.slice(0, filter.max_tasks) : hits, total: hits.length, all: tasks };
  }

  /** One task; ToolError when the id is unknown. */
  async get(id: string): Promise<{ task: Task; all: Task[] }> {
    const { tasks } = await this.read();
    return { task: find(tasks, id), all: tasks };
  }

  /** Actionable tasks: in progress first, then by priority, then creation order. */
  async next(max = 5): Promise<Task[]> {
    const { tasks } = await this.read();
    const rank = (t: Task) => (t.status === "in_progress" ? -1 : TASK_PRIORITIES.indexOf(t.priority));
    const byId = tasksById(tasks);
    return tasks
      .map((t, i) => ({ t, i }))
      .filter(({ t }) => isActionable(t, byId))
      .sort((a, b) => rank(a.t) - rank(b.t) || a.i - b.i)
      .slice(0, max)
      .map(({ t }) => t);
  }

  /** Creates one task; duplicate ids, dangling references and cycles are rejected. */
  async create(input: TaskInput): Promise<Task> {
    return this.mutate((state, now) => addTask(state, input, now));
  }

  /** Changes fields of a task; a status change to completed/cancelled releases dependents. */
  async update(id: string, patch: TaskPatch): Promise<{ task: Task; released: string[] }> {
    return this.mutate((state, now) => patchTask(state, id, patch, now));
  }

  /** Starts a task: `in_progress`, or `blocked` with `waiting_on:<ids>` while dependencies are open. */
  async start(id: string, owner?: string, activeForm?: string): Promise<{ task: Task; waitingOn: string[] }> {
    return this.mutate((state, now) => {
      const task = find(state.tasks, id);
      if (task.status === "completed" || task.status === "cancelled")
        throw new ToolError(
          `Task "${id}" is ${task.status}; reopen it first with task_update {"task_id": "${id}", "status": "pending"}.`,
          "precondition_failed",
        );
      if (owner !== undefined) task.owner = owner;
      if (activeForm !== undefined) task.active_form = activeForm;
      const open = unresolvedDeps(task, tasksById(state.tasks));
      if (open.length) {
        task.status = "blocked";
        task.reason = waitingOn(open);
      } else {
        task.status = "in_progress";
        delete task.reason;
      }
      task.updated_at = now;
      return { task, waitingOn: open };
    });
  }

  /** Marks a task completed and moves the tasks it unblocked back to `pending`. */
  async complete(id: string): Promise<{ task: Task; released: string[] }> {
    return this.update(id, { status: "completed" });
  }

  /** Marks a task blocked, optionally adding dependencies; the reason defaults to `waiting_on:<ids>`. */
  async block(id: string, blockedBy: string[] = [], reason?: string): Promise<Task> {
    return this.mutate((state, now) => {
      const task = find(state.tasks, id);
      task.blocked_by = [...new Set([...task.blocked_by, ...blockedBy])];
      task.status = "blocked";
      const open = unresolvedDeps(task, tasksById(state.tasks));
      task.reason = reason ?? (open.length ? waitingOn(open) : "blocked");
      task.updated_at = now;
      return task;
    });
  }

  /** Cancels a task (dependents it held up are released, like on completion). */
  async cancel(id: string, reason?: string): Promise<{ task: Task; released: string[] }> {
    return this.update(id, { status: "cancelled", reason });
  }

  /** Replaces every task accepted by `replaceable` with `inputs` (todo_write); others are kept. */
  async replace(inputs: TaskInput[], replaceable: (t: Task) => boolean): Promise<{ tasks: Task[]; removed: string[] }> {
    return this.mutate((state, now) => {
      const removed = state.tasks.filter(replaceable).map((t) => t.id);
      state.tasks = state.tasks.filter((t) => !replaceable(t));
      const ids = new Set<string>();
      for (const input of inputs) {
        if (input.task_id !== undefined && ids.has(input.task_id))
          throw new ToolError(`Duplicate id "${input.task_id}" in items: every item needs its own id.`, "precondition_failed");
        if (input.task_id !== undefined) ids.add(input.task_id);
      }
      // Create without dependencies first so items may refer to later items, then link.
      const created = inputs.map((input) => addTask(state, { ...input, blocks: [], blocked_by: [] }, now, false));
      inputs.forEach((input, i) => {
        created[i]!.blocked_by = [...(input.blocked_by ?? [])];
        applyBlocks(state.tasks, created[i]!.id, input.blocks ?? []);
      });
      return { tasks: created, removed };
    });
  }
}

/** Adds a task to `state` (id generated as `task_<n>` unless given). Exported for the plan runtime. */
export function addTask(state: TaskState, input: TaskInput, now: string, link = true): Task {
  const status = normalizeStatus(input.status ?? "pending");
  let id = input.task_id;
  if (id === undefined) {
    // At most tasks.length + 1 tries, each a set lookup: `seq` is a safe integer well below 2^53 (checkShape).
    const taken = new Set(state.tasks.map((t) => t.id));
    do id = `task_${++state.seq}`;
    while (taken.has(id));
  } else if (state.tasks.some((t) => t.id === id))
    throw new ToolError(`A task with id "${id}" already exists. Use another task_id, or change it with task_update.`, "precondition_failed");
  const task: Task = {
    id,
    title: input.title,
    description: input.description ?? "",
    status,
    priority: normalizePriority(input.priority),
    ...(input.active_form !== undefined ? { active_form: input.active_form } : {}),
    ...(input.owner !== undefined ? { owner: input.owner } : {}),
    blocks: [],
    blocked_by: [...(input.blocked_by ?? [])],
    metadata: { ...(input.metadata ?? {}) },
    created_at: now,
    updated_at: now,
  };
  state.tasks.push(task);
  if (link) applyBlocks(state.tasks, id, input.blocks ?? []);
  return task;
}

/** Applies a patch to one task in `state`; completion or cancellation releases dependents. */
export function patchTask(state: TaskState, id: string, patch: TaskPatch, now: string): { task: Task; released: string[] } {
  const task = find(state.tasks, id);
  const status: TaskStatus | undefined = patch.status === undefined ? undefined : normalizeStatus(patch.status);
  if (patch.title !== undefined) task.title = patch.title;
  if (patch.description !== undefined) task.description = patch.description;
  if (patch.priority !== undefined) task.priority = normalizePriority(patch.priority);
  if (patch.active_form !== undefined) task.active_form = patch.active_form;
  if (patch.owner !== undefined) task.owner = patch.owner;
  if (patch.blocked_by !== undefined) task.blocked_by = [...patch.blocked_by];
  if (patch.blocks !== undefined) {
    for (const other of state.tasks) if (other.id !== id) other.blocked_by = other.blocked_by.filter((d) => d !== id);
    applyBlocks(state.tasks, id, patch.blocks);
  }
  if (patch.metadata !== undefined)
    for (const [key, value] of Object.entries(patch.metadata)) {
      if (key === "__proto__" || key === "constructor" || key === "prototype") continue;
      if (value === null) delete task.metadata[key];
      else task.metadata[key] = value;
    }
  if (status !== undefined) {
    task.status = status;
    if (status === "pending" || status === "in_progress" || status === "completed") delete task.reason;
  }
  if (patch.reason !== undefined) task.reason = patch.reason;
  task.updated_at = now;
  const released = status === "completed" || status === "cancelled" ? releaseDependents(state.tasks, id, now) : [];
  return { task, released };
}

/** The task with that id; ToolError naming the known ids otherwise. */
export function find(tasks: Task[], id: string): Task {
  const task = tasks.find((t) => t.id === id);
  if (!task) {
    const known = tasks
      .slice(0, 10)
      .map((t) => t.id)
      .join(", ");
    throw new ToolError(
      `No task with id "${id}".${known ? ` Known ids: ${known}${tasks.length > 10 ? ", …" : ""}.` : " There are no tasks yet."} Use task_list (\`keel task list\`) to see them.`,
      "precondition_failed",
    );
  }
  return task;
}

function checkShape(state: TaskState, file: string): TaskState {
  if (!state || typeof state !== "object" || !Array.isArray(state.tasks))
    throw new StateError(`State file ${file} does not hold a task list ({"tasks": [...]}). keel left it untouched: fix or move it, then retry.`, file);
  // `seq` numbers generated ids: one keel could not have written (a repository can commit it; at 2^53 `++seq` stops
  // changing, so finding a free id never ended) restarts from the task count.
  if (!Number.isSafeInteger(state.seq) || state.seq < 0 || state.seq > MAX_SEQ) state.seq = state.tasks.length;
  state.tasks.forEach((task, i) => {
    const problem = taskEntryProblem(task);
    if (problem)
      throw new StateError(
        `State file ${file}: tasks[${i}] ${problem}. keel left it untouched: fix or remove that entry (or move the file), then retry.`,
        file,
      );
  });
  return state;
}

/** Why a stored task entry is not one keel could have written (a repository can commit the file), or undefined. Never throws. */
function taskEntryProblem(task: Task): string | undefined {
  if (!task || typeof task !== "object" || Array.isArray(task)) return "is not an object";
  if (typeof task.id !== "string" || !new RegExp(TASK_ID_PATTERN).test(task.id)) return `has an invalid id ${JSON.stringify(task.id)}`;
  if (typeof task.title !== "string") return "has no title";
  if (!(TASK_STATUSES as readonly string[]).includes(task.status)) return `has an unknown status ${JSON.stringify(task.status)}`;
  if (!(TASK_PRIORITIES as readonly string[]).includes(task.priority)) return `has an unknown priority ${JSON.stringify(task.priority)}`;
  for (const key of ["blocked_by", "blocks"] as const)
    if (!Array.isArray(task[key]) || !task[key].every((id) => typeof id === "string")) return `has a ${key} that is not a list of task ids`;
  return undefined;
}
