import { Option } from "commander";
import { type CommandRegistrar, positiveIntOption } from "../../core/cli/index.js";

const collect = (value: string, previous: string[]) => [...previous, value];

/** Registers `keel workflow list|show|run|runs`. Implementations load lazily. */
export const registerWorkflowCommands: CommandRegistrar = (program, ctx) => {
  const wf = program.command("workflow").description("Workflows: named, parameterized steps (tools, shell, prompts, nested workflows) defined in files");
  const load = () => import("./workflow-commands.js");
  wf.command("list")
    .description("List discovered workflows")
    .argument("[query]", "filter by name or description")
    .action(async (query: string | undefined) => (await load()).workflowListCommand(ctx, query));
  wf.command("show")
    .description("Show a workflow: parameters, prompt and every step")
    .argument("<name>", "workflow name (case-insensitive)")
    .action(async (name: string) => (await load()).workflowShowCommand(ctx, name));
  wf.command("run")
    .description("Run a workflow by name; exit 1 when it fails")
    .argument("<name>", "workflow name (case-insensitive)")
    .option("--arg <key=value>", "an argument (repeatable)", collect, [] as string[])
    .addOption(
      new Option("--worktree [onFinish]", "run inside a fresh managed worktree; onFinish: keep (default), merge or discard").choices([
        "keep",
        "merge",
        "discard",
      ]),
    )
    .action(async (name: string, opts: { arg: string[]; worktree?: true | "keep" | "merge" | "discard" }) =>
      (await load()).workflowRunCommand(ctx, name, opts),
    );
  wf.command("runs")
    .description("Show recent workflow runs (from .keel/state/workflow-runs.jsonl)")
    .option("--limit <n>", "how many runs", positiveIntOption("--limit"), 20)
    .action(async (opts: { limit: number }) => (await load()).workflowRunsCommand(ctx, opts));
};
