import { exactText } from "../../core/cli/index.js";
import { defineTool, type ToolDefinition } from "../../core/index.js";
import { STATUS_ENUM, TASK_ID_PATTERN, TASK_PRIORITIES } from "../task/task-types.js";
import type { PlanStore, PlanSyncResult, PlanView } from "./plan-store.js";

const SOURCE = { kind: "runtime", id: "plan" } as const;

const itemSchema = {
  type: "object",
  properties: {
    step: { type: "string", minLength: 1, description: "What to do" },
    status: {
      type: "string",
      enum: STATUS_ENUM,
      description: "pending (default), in_progress, completed, blocked, cancelled (aliases todo/open, done/complete)",
    },
    task_id: { type: "string", pattern: TASK_ID_PATTERN, description: "Id of the synced task (default plan_<n>)" },
    description: { type: "string" },
    priority: { type: "string", enum: [...TASK_PRIORITIES] },
    active_form: { type: "string" },
    owner: { type: "string" },
    depends_on: {
      type: "array",
      items: { type: ["string", "integer"] },
      description: "Steps this one waits for: 1-based step numbers, task_ids or exact step texts",
    },
  },
  required: ["step"],
  additionalProperties: false,
} as const;

const syncTasks = {
  type: "boolean",
  description: "Keep the plan's own tasks in sync (default true). Tasks created outside the plan are never touched.",
} as const;

/**
 * Plan as text: explanation, then one numbered line per step. A step is shown exactly (`exactText`); the explanation
 * keeps its lines, each after the first indented by 2 spaces: neither can fake a step.
 */
export function formatPlan(plan: { explanation?: string; items: PlanView[] }): string {
  const explanation = plan.explanation
    ? String(plan.explanation)
        .split(/\r\n|[\n\r\u2028\u2029]/)
        .join("\n  ")
    : "";
  if (plan.items.length === 0) return explanation ? `${explanation}\n(no steps)` : "No plan.";
  const mark = { pending: "[ ]", in_progress: "[~]", completed: "[x]", blocked: "[!]", cancelled: "[-]" } as const;
  const lines = plan.items.map((item, i) => {
    const status = item.task_status ?? item.status;
    const deps = item.depends_on.length ? ` ← ${item.depends_on.join(", ")}` : "";
    return `${i + 1}. ${mark[status]} ${exactText(item.step)} (${item.task_id}, ${status})${deps}`;
  });
  return [...(explanation ? [explanation] : []), ...lines].join("\n");
}

function syncText(sync: PlanSyncResult | undefined): string {
  if (!sync) return "\nTasks not synced (sync_tasks: false).";
  const parts = [
    sync.created.length ? `created ${sync.created.join(", ")}` : "",
    sync.updated.length ? `updated ${sync.updated.join(", ")}` : "",
    sync.removed.length ? `removed ${sync.removed.join(", ")}` : "",
  ].filter(Boolean);
  return `\nTasks: ${parts.length ? parts.join("; ") : "no changes"}.`;
}

/** The plan runtime's tools: plan_get, update_plan, plan_clear. */
export function planTools(store: PlanStore, prepare: () => void): ToolDefinition[] {
  const base = { source: SOURCE };
  return [
    defineTool(
      { type: "object", properties: {}, additionalProperties: false },
      {
        ...base,
        name: "plan_get",
        description: "Show the current plan with the live status of each step's task.",
        risk: ["read"],
        readOnly: true,
        async execute() {
          const plan = await store.get();
          return { content: formatPlan(plan), data: plan };
        },
      },
    ),
    defineTool(
      {
        type: "object",
        properties: { items: { type: "array", items: itemSchema }, explanation: { type: "string" }, sync_tasks: syncTasks },
        required: ["items"],
        additionalProperties: false,
      },
      {
        ...base,
        name: "update_plan",
        description:
          "Replace the plan. With sync_tasks (default true) each step becomes a task (plan_<n> unless task_id is given; depends_on → blocked_by). Tasks created outside the plan are never changed.",
        risk: ["write"],
        readOnly: false,
        async execute(input) {
          prepare();
          const { sync } = await store.update(input.items, input.explanation, input.sync_tasks !== false);
          const plan = await store.get();
          return { content: formatPlan(plan) + syncText(sync), data: { ...plan, sync: sync ?? null } };
        },
      },
    ),
    defineTool(
      { type: "object", properties: { sync_tasks: syncTasks }, additionalProperties: false },
      {
        ...base,
        name: "plan_clear",
        description: "Clear the plan. With sync_tasks (default true) its own tasks are deleted; other tasks are kept.",
        risk: ["write"],
        readOnly: false,
        async execute(input) {
          prepare();
          const { cleared, sync } = await store.clear(input.sync_tasks !== false);
          return { content: `Plan cleared (${cleared} step${cleared === 1 ? "" : "s"}).${syncText(sync)}`, data: { cleared, sync: sync ?? null } };
        },
      },
    ),
  ];
}
