import { readJsonState, StateError, withFileLock, writeJsonState } from "../../core/index.js";
import { tasksById } from "../task/task-graph.js";
import { asToolError, type TaskStore } from "../task/task-store.js";
import { isPlanOwned, TASK_ID_PATTERN, TASK_STATUSES, type Task } from "../task/task-types.js";
import { normalizePlanItems, removePlanTasks, syncPlanTasks, type PlanItem, type PlanItemInput } from "./plan-sync.js";

/** The plan state file. */
export interface PlanState {
  version: 1;
  explanation?: string;
  items: PlanItem[];
  updated_at?: string;
}

/** A plan step as shown: the stored step plus the live status of its synced task, if any. */
export interface PlanView extends PlanItem {
  task_status?: Task["status"];
}

/** What `update_plan` / `plan_clear` changed in the task list. */
export interface PlanSyncResult {
  created: string[];
  updated: string[];
  removed: string[];
}

/**
 * The plan in `.keel/state/plan.json`. Changes hold the plan lock, then (when syncing) the
 * tasks lock, always in that order; the plan file is written only after the tasks synced.
 */
export class PlanStore {
  constructor(
    /** Absolute path of `plan.json`. */
    readonly file: string,
    private readonly tasks: TaskStore,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** The plan with each step's live task status. Throws ToolError for an unparseable file. */
  async get(): Promise<{ explanation?: string; items: PlanView[]; updated_at?: string }> {
    const plan = await this.read();
    const byId = tasksById((await this.tasks.read()).tasks);
    const items = plan.items.map((item) => {
      const task = byId.get(item.task_id);
      return task && isPlanOwned(task) ? { ...item, task_status: task.status } : { ...item };
    });
    return { explanation: plan.explanation, items, updated_at: plan.updated_at };
  }

  /** Replaces the plan; with `sync` the plan-owned tasks follow it (hand-made tasks are never touched). */
  async update(inputs: PlanItemInput[], explanation: string | undefined, sync: boolean): Promise<{ plan: PlanState; sync?: PlanSyncResult }> {
    const items = normalizePlanItems(inputs);
    return this.locked(async () => {
      await this.read();
      const now = this.clock().toISOString();
      const result = sync ? await this.tasks.mutate((state, at) => syncPlanTasks(state, items, at)) : undefined;
      const plan: PlanState = { version: 1, ...(explanation !== undefined ? { explanation } : {}), items, updated_at: now };
      await writeJsonState(this.file, plan);
      return { plan, sync: result };
    });
  }

  /** Empties the plan; with `sync` deletes the tasks it owns (and only those). */
  async clear(sync: boolean): Promise<{ cleared: number; sync?: PlanSyncResult }> {
    return this.locked(async () => {
      const plan = await this.read();
      const result = sync ? await this.tasks.mutate((state) => ({ created: [], updated: [], removed: removePlanTasks(state, () => true) })) : undefined;
      await writeJsonState(this.file, { version: 1, items: [], updated_at: this.clock().toISOString() } satisfies PlanState);
      return { cleared: plan.items.length, sync: result };
    });
  }

  private async read(): Promise<PlanState> {
    return asToolError(async () => {
      const plan = await readJsonState<PlanState>(this.file, { version: 1, items: [] });
      if (!plan || typeof plan !== "object" || !Array.isArray(plan.items))
        throw new StateError(`State file ${this.file} does not hold a plan ({"items": [...]}). keel left it untouched: fix or move it, then retry.`, this.file);
      plan.items.forEach((item, i) => {
        const problem = planItemProblem(item);
        if (problem)
          throw new StateError(
            `State file ${this.file}: items[${i}] ${problem}. keel left it untouched: fix or remove that entry (or move the file), then retry.`,
            this.file,
          );
      });
      return plan;
    });
  }

  private locked<T>(fn: () => Promise<T>): Promise<T> {
    return asToolError(() => withFileLock(this.file, fn));
  }
}

/** Why a stored plan item is not one keel could have written (a repository can commit the file), or undefined. Never throws. */
function planItemProblem(item: PlanItem): string | undefined {
  if (!item || typeof item !== "object" || Array.isArray(item)) return "is not an object";
  if (typeof item.step !== "string") return "has no step text";
  if (!(TASK_STATUSES as readonly string[]).includes(item.status)) return `has an unknown status ${JSON.stringify(item.status)}`;
  if (typeof item.task_id !== "string" || !new RegExp(TASK_ID_PATTERN).test(item.task_id)) return `has an invalid task_id ${JSON.stringify(item.task_id)}`;
  if (!Array.isArray(item.depends_on) || !item.depends_on.every((id) => typeof id === "string")) return "has a depends_on that is not a list of task ids";
  return undefined;
}
