import { defineTool, type InputOf, objectSchema, type RiskTag, type SchemaLiteral, type ToolDefinition, type ToolResult } from "../../core/index.js";
import { formatTask, formatTaskLine, formatTaskList } from "./task-format.js";
import type { TaskStore } from "./task-store.js";
import { isPlanOwned, STATUS_ENUM, TASK_ID_PATTERN, TASK_PRIORITIES, type TaskInput } from "./task-types.js";

const SOURCE = { kind: "runtime", id: "task" } as const;

const id = { type: "string", pattern: TASK_ID_PATTERN, description: "Task id" } as const;
const ids = <const W extends string>(what: W) => ({ type: "array", items: id, description: what }) as const;
const status = {
  type: "string",
  enum: STATUS_ENUM,
  description: "pending, in_progress, completed, blocked, cancelled (aliases todo/open, done/complete)",
} as const;
const priority = { type: "string", enum: [...TASK_PRIORITIES], description: "critical, high, medium (default) or low" } as const;
const fields = {
  title: { type: "string", minLength: 1, description: "Short imperative title" },
  description: { type: "string" },
  status,
  priority,
  active_form: { type: "string", description: "Present-continuous form shown while in progress" },
  owner: { type: "string", description: "Agent or person working on it" },
  blocks: ids("Tasks that wait for this one"),
  blocked_by: ids("Tasks this one waits for"),
  metadata: { type: "object", description: "Free-form data (task_update merges it; null removes a key)" },
} as const;

const obj = objectSchema;

/** A task tool; `run` receives the input type derived from `inputSchema`. */
function tool<const S extends SchemaLiteral, I = InputOf<S>>(
  name: string,
  description: string,
  inputSchema: S,
  risk: RiskTag,
  run: (input: I) => Promise<ToolResult>,
): ToolDefinition<NoInfer<I>> {
  return defineTool<S, I>(inputSchema, {
    name,
    description,
    source: SOURCE,
    risk: [risk],
    readOnly: risk === "read",
    permissionKey: "task_id",
    execute: (input) => run(input),
  });
}

/** The task runtime's tools over one store. `prepare` creates `.keel/` before the first write. */
export function taskTools(store: TaskStore, prepare: () => void): ToolDefinition[] {
  const write = <const S extends SchemaLiteral, I = InputOf<S>>(name: string, description: string, schema: S, run: (input: I) => Promise<ToolResult>) =>
    tool<S, I>(name, description, schema, "write", async (input) => {
      prepare();
      return run(input);
    });
  return [
    tool(
      "task_list",
      "List tasks, optionally filtered by status, owner or actionability (in progress, or pending with every dependency done).",
      obj({ status, owner: { type: "string" }, actionable_only: { type: "boolean" }, max_tasks: { type: "integer", minimum: 1 } }),
      "read",
      async (input) => {
        const { tasks, total } = await store.list(input);
        return { content: formatTaskList(tasks, total), data: { tasks, total } };
      },
    ),
    tool("task_get", "Show one task with its dependencies.", obj({ task_id: id }, ["task_id"]), "read", async (input) => {
      const { task } = await store.get(input.task_id);
      return { content: formatTask(task), data: { task } };
    }),
    tool(
      "task_next",
      "The tasks to work on next: in progress first, then actionable pending tasks by priority.",
      obj({ max_tasks: { type: "integer", minimum: 1 } }),
      "read",
      async (input) => {
        const tasks = await store.next(input.max_tasks ?? 5);
        return { content: formatTaskList(tasks, tasks.length, "No actionable tasks."), data: { tasks } };
      },
    ),
    write("task_create", "Create a task. Ids are generated (task_<n>) unless task_id is given.", obj({ ...fields, task_id: id }, ["title"]), async (input) => {
      const task = await store.create(input);
      return { content: `Created ${formatTaskLine(task)}`, data: { task } };
    }),
    write(
      "task_update",
      "Change fields of a task. blocks/blocked_by replace the lists; metadata merges.",
      obj({ ...fields, title: { type: "string", minLength: 1 }, task_id: id, reason: { type: "string" } }, ["task_id"]),
      async ({ task_id, ...patch }) => {
        const { task, released } = await store.update(task_id, patch);
        return { content: `Updated ${formatTaskLine(task)}${releasedText(released)}`, data: { task, released } };
      },
    ),
    write(
      "task_start",
      "Start a task. With unfinished dependencies it becomes blocked with reason waiting_on:<ids>.",
      obj({ task_id: id, owner: fields.owner, active_form: fields.active_form }, ["task_id"]),
      async (input) => {
        const { task, waitingOn } = await store.start(input.task_id, input.owner, input.active_form);
        const text = waitingOn.length
          ? `Task ${task.id} is blocked: waiting on ${waitingOn.join(", ")}. Complete those first.`
          : `Started ${formatTaskLine(task)}`;
        return { content: text, data: { task, waiting_on: waitingOn } };
      },
    ),
    write("task_complete", "Mark a task completed; tasks it unblocked return to pending.", obj({ task_id: id }, ["task_id"]), async (input) => {
      const { task, released } = await store.complete(input.task_id);
      return { content: `Completed ${formatTaskLine(task)}${releasedText(released)}`, data: { task, released } };
    }),
    write(
      "task_block",
      "Mark a task blocked, optionally adding the tasks it waits for.",
      obj({ task_id: id, blocked_by: fields.blocked_by, reason: { type: "string" } }, ["task_id"]),
      async (input) => {
        const task = await store.block(input.task_id, input.blocked_by, input.reason);
        return { content: `Blocked ${formatTaskLine(task)}`, data: { task } };
      },
    ),
    write(
      "task_cancel",
      "Cancel a task; tasks waiting only on it return to pending.",
      obj({ task_id: id, reason: { type: "string" } }, ["task_id"]),
      async (input) => {
        const { task, released } = await store.cancel(input.task_id, input.reason);
        return { content: `Cancelled ${formatTaskLine(task)}${releasedText(released)}`, data: { task, released } };
      },
    ),
    write(
      "todo_write",
      "Replace the task list with these items (tasks synced from the plan are kept). Items may refer to each other in blocked_by/blocks.",
      obj({ items: { type: "array", items: todoItemSchema() } }, ["items"]),
      async (input) => {
        const { tasks, removed } = await store.replace(input.items.map(todoToTask), (t) => !isPlanOwned(t));
        return {
          content: formatTaskList(tasks, tasks.length, "Task list cleared."),
          data: { tasks, removed },
        };
      },
    ),
  ];
}

/** A todo_write item: task fields, plus the reference host's spellings `id`, `content`, `activeForm`. */
export interface TodoItem extends Partial<TaskInput> {
  id?: string;
  content?: string;
  activeForm?: string;
}

function todoItemSchema() {
  return {
    type: "object",
    properties: { ...fields, task_id: id, id, content: { type: "string", minLength: 1 }, activeForm: { type: "string" } },
    anyOf: [{ required: ["title"] }, { required: ["content"] }],
    additionalProperties: false,
  } as const;
}

function todoToTask(item: TodoItem): TaskInput {
  const { id: shortId, content, activeForm, ...rest } = item;
  return { ...rest, title: item.title ?? content!, task_id: item.task_id ?? shortId, active_form: item.active_form ?? activeForm };
}

function releasedText(released: string[]): string {
  return released.length ? `\nUnblocked (now pending): ${released.join(", ")}` : "";
}
