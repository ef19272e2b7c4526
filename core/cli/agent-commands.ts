import { refuseInToolProcess } from "./your-terminal-only.js";
import { positiveIntOption } from "./int-option.js";
import { commandGroup } from "./command-group.js";
import type { CommandRegistrar } from "./cli-context.js";

/** Registers `keel chat`, `keel run`, `keel context`, `keel sessions …` and `keel send`. Implementations load lazily. */
export const registerAgentCommands: CommandRegistrar = (program, ctx) => {
  program
    .command("chat")
    .description("Interactive session on a terminal (also `keel` alone): streamed answers, live tool activity, inline approvals, /help")
    .option("--resume <id>", "continue session ID")
    .option("--model <model>", "model name (overrides config)")
    .action(async (opts: { resume?: string; model?: string }) => (await import("./chat/chat-command.js")).chatCommand(ctx, opts));

  program
    .command("run")
    .description("Run the agent on a prompt (or continue a session with --resume); streams the answer")
    .argument("[prompt]", "what the agent should do")
    .option("--model <model>", "model name, or scripted:FILE (overrides config)")
    .option("--resume <id>", "continue session ID (crash recovery happens first)")
    .option("--session <id>", "id for the new session")
    .option("--max-steps <n>", "most model calls in this turn", positiveIntOption("--max-steps"))
    .option("--worktree", "run in a fresh managed git worktree (kept afterwards)")
    .addHelpText(
      "after",
      "\nThe global --yes (approve every ask) and --json (print the outcome as JSON) apply. Sessions live in .keel/sessions/<id>/; see the README section The agent.",
    )
    .action(async (prompt: string | undefined, opts) => (await import("./commands/run-command.js")).runCommand(ctx, prompt, opts));

  program
    .command("context")
    .description("Show what the model sees when a session starts here: system prompt, instruction files with their sources, tool menu with token estimates")
    .option("--model <model>", "model whose context window the estimates use (overrides config)")
    .action(async (opts: { model?: string }) => (await import("./commands/context-command.js")).contextCommand(ctx, opts));

  const sessions = commandGroup(
    program,
    "sessions",
    "List and inspect agent sessions; approve or reject paused calls",
    "keel sessions [list] | show ID | events ID [--tail N | --limit N] [--follow] | approve ID | reject ID | adopt ID",
    async () => (await import("./commands/sessions-command.js")).sessionsList(ctx),
  );
  sessions
    .command("list")
    .description("List sessions, newest first")
    .action(async () => (await import("./commands/sessions-command.js")).sessionsList(ctx));
  sessions
    .command("show")
    .argument("<id>")
    .description("Show a session's contract, status, usage and transcript summary")
    .action(async (id: string) => (await import("./commands/sessions-command.js")).sessionsShow(ctx, id));
  sessions
    .command("events")
    .argument("<id>")
    .option("--follow", "keep printing new events until the session stops")
    .option("--tail <n>", "only the last N events (read from the end of the log)", positiveIntOption("--tail"))
    .option("--limit <n>", "only the first N events", positiveIntOption("--limit"))
    .description("Print a session's events (events.jsonl), read line by line; a line too long to read is reported on stderr as skipped")
    .action(async (id: string, opts: { follow?: boolean; tail?: number; limit?: number }) =>
      (await import("./commands/session-events-command.js")).sessionsEvents(ctx, id, opts),
    );
  sessions
    .command("adopt")
    .argument("<id>")
    .description("Make a session that came with the workspace yours, so keel resumes it (read it first: keel sessions show ID)")
    .action(async (id: string) => {
      refuseInToolProcess(ctx.io.env, "keel sessions adopt");
      await (await import("./commands/sessions-command.js")).sessionsAdopt(ctx, id);
    });
  for (const decision of ["approve", "reject"] as const)
    sessions
      .command(decision)
      .argument("<id>")
      .description(`${decision === "approve" ? "Approve" : "Reject"} the tool call a paused session waits on, then continue the run`)
      .action(async (id: string) => {
        // An approval is yours to give: a model's command (or a hook) may not answer for you (see refuseInToolProcess).
        refuseInToolProcess(ctx.io.env, `keel sessions ${decision}`);
        await (await import("./commands/run-command.js")).decideCommand(ctx, id, decision);
      });

  program
    .command("send")
    .description("Queue a message for a session: injected before its next model call, or run on the next resume (FIFO)")
    .argument("<id>", "session id")
    .argument("<text>", "the message")
    .action(async (id: string, text: string) => (await import("./commands/sessions-command.js")).sendCommand(ctx, id, text));
};
