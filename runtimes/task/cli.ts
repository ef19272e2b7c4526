import { Option } from "commander";
import { type CommandRegistrar, positiveIntOption, runToolCommand } from "../../core/cli/index.js";

/** Status spellings `--status` accepts: task-types.ts's STATUS_ENUM, repeated here so the CLI loads no runtime code (a test keeps them equal). */
export const STATUS_CHOICES = ["pending", "todo", "open", "in_progress", "completed", "done", "complete", "blocked", "cancelled"] as const;
/** Priorities `--priority` accepts (TASK_PRIORITIES). */
export const PRIORITY_CHOICES = ["critical", "high", "medium", "low"] as const;

/** Splits `a,b c` lists given on the command line. */
export function listOption(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(/[,\s]+/).filter(Boolean)];
}

/** Drops undefined fields so the tool's schema sees only what the user gave. */
export function defined(input: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
}

/** Registers `keel task list|show|next|add|start|done|block|cancel`: thin wrappers over the task_* tools. */
export const registerTaskCommands: CommandRegistrar = (program, ctx) => {
  const run = async (tool: string, input: Record<string, unknown>): Promise<void> => {
    await runToolCommand(ctx, tool, defined(input));
  };
  const task = program.command("task").description("Tasks in .keel/state/tasks.json (task_* tools)");

  task
    .command("list")
    .description("List tasks")
    .addOption(new Option("--status <status>", "only this status").choices(STATUS_CHOICES))
    .option("--owner <owner>", "only tasks of this owner")
    .option("--actionable", "only actionable tasks")
    .option("--max <n>", "at most n tasks", positiveIntOption("--max"))
    .action((o: { status?: string; owner?: string; actionable?: boolean; max?: number }) =>
      run("task_list", { status: o.status, owner: o.owner, actionable_only: o.actionable, max_tasks: o.max }),
    );

  task
    .command("show")
    .description("Show one task")
    .argument("<id>")
    .action((id: string) => run("task_get", { task_id: id }));

  task
    .command("next")
    .description("Tasks to work on next")
    .option("--max <n>", "at most n tasks", positiveIntOption("--max"))
    .action((o: { max?: number }) => run("task_next", { max_tasks: o.max }));

  task
    .command("add")
    .description("Create a task")
    .argument("<title>")
    .option("--id <id>", "task id (default task_<n>)")
    .option("--description <text>")
    .addOption(new Option("--status <status>", "initial status (default pending)").choices(STATUS_CHOICES))
    .addOption(new Option("--priority <priority>", "priority (default medium)").choices(PRIORITY_CHOICES))
    .option("--owner <owner>")
    .option("--active-form <text>")
    .option("--blocked-by <ids>", "tasks this one waits for (comma-separated, repeatable)", listOption)
    .option("--blocks <ids>", "tasks that wait for this one (comma-separated, repeatable)", listOption)
    .action((title: string, o: Record<string, string | string[] | undefined>) =>
      run("task_create", {
        title,
        task_id: o.id,
        description: o.description,
        status: o.status,
        priority: o.priority,
        owner: o.owner,
        active_form: o.activeForm,
        blocked_by: o.blockedBy,
        blocks: o.blocks,
      }),
    );

  task
    .command("start")
    .description("Start a task (blocked with waiting_on:<ids> while dependencies are open)")
    .argument("<id>")
    .option("--owner <owner>")
    .option("--active-form <text>")
    .action((id: string, o: { owner?: string; activeForm?: string }) => run("task_start", { task_id: id, owner: o.owner, active_form: o.activeForm }));

  task
    .command("done")
    .description("Complete a task")
    .argument("<id>")
    .action((id: string) => run("task_complete", { task_id: id }));

  task
    .command("block")
    .description("Mark a task blocked")
    .argument("<id>")
    .option("--by <ids>", "tasks it waits for (comma-separated, repeatable)", listOption)
    .option("--reason <text>")
    .action((id: string, o: { by?: string[]; reason?: string }) => run("task_block", { task_id: id, blocked_by: o.by, reason: o.reason }));

  task
    .command("cancel")
    .description("Cancel a task")
    .argument("<id>")
    .option("--reason <text>")
    .action((id: string, o: { reason?: string }) => run("task_cancel", { task_id: id, reason: o.reason }));
};
