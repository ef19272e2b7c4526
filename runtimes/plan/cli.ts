import { type CommandRegistrar, runToolCommand } from "../../core/cli/index.js";

/** Registers `keel plan [show|clear]`: thin wrappers over plan_get and plan_clear. */
export const registerPlanCommands: CommandRegistrar = (program, ctx) => {
  const run = async (tool: string, input: Record<string, unknown>): Promise<void> => {
    await runToolCommand(ctx, tool, input);
  };
  const plan = program.command("plan").description("The plan in .keel/state/plan.json (shows it without a subcommand)");
  plan.action(() => run("plan_get", {}));
  plan
    .command("show")
    .description("Show the plan and the status of its tasks")
    .action(() => run("plan_get", {}));
  plan
    .command("clear")
    .description("Clear the plan and delete the tasks it created (other tasks are kept)")
    .option("--keep-tasks", "leave the plan's tasks in place (sync_tasks: false)")
    .action((o: { keepTasks?: boolean }) => run("plan_clear", { sync_tasks: !o.keepTasks }));
};
