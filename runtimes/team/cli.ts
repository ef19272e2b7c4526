import { type CommandRegistrar, positiveIntOption, runToolCommand } from "../../core/cli/index.js";

/** Registers `keel team list|show|create|send|messages`: thin wrappers over the team tools. */
export const registerTeamCommands: CommandRegistrar = (program, ctx) => {
  const run = async (tool: string, input: Record<string, unknown>): Promise<void> => {
    const clean = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
    await runToolCommand(ctx, tool, clean);
  };
  const team = program.command("team").description("Teams and their messages in .keel/state/teams/");
  team
    .command("list")
    .description("List teams (created and declared)")
    .action(() => run("team_list", {}));
  team
    .command("show")
    .description("Show a team")
    .argument("<name>")
    .action((name: string) => run("team_get", { team_name: name }));
  team
    .command("create")
    .description("Create a team")
    .argument("<name>")
    .argument("[members...]", "member names")
    .option("--description <text>")
    .action((name: string, members: string[], o: { description?: string }) => run("team_create", { team_name: name, members, description: o.description }));
  team
    .command("delete")
    .description("Delete a created team (its messages are archived)")
    .argument("<name>")
    .action((name: string) => run("team_delete", { team_name: name }));
  team
    .command("send")
    .description("Send a message")
    .argument("<name>", "team")
    .argument("<message>")
    .option("--to <member>", "recipient (default * = everyone)")
    .option("--from <sender>", "sender (default user)")
    .action((name: string, message: string, o: { to?: string; from?: string }) =>
      run("send_message", { team_name: name, message, recipient: o.to, sender: o.from }),
    );
  team
    .command("messages")
    .description("Read messages, oldest first")
    .argument("<name>", "team")
    .option("--for <member>", "only this member's messages (plus broadcasts)")
    .option("--since <id>", "only messages after this id (msg_12 or 12)")
    .option("--limit <n>", "at most n messages", positiveIntOption("--limit"))
    .action((name: string, o: { for?: string; since?: string; limit?: number }) =>
      run("team_messages", { team_name: name, recipient: o.for, since: o.since, limit: o.limit }),
    );
};
