import { Option } from "commander";
import type { CommandRegistrar } from "../../core/cli/index.js";

/** Registers `keel worktree enter|exit|status|list|gc`. Implementations load lazily. */
export const registerWorktreeCommands: CommandRegistrar = (program, ctx) => {
  const wt = program.command("worktree").description("Sandboxed experiments in git worktrees you can keep, merge or discard");
  const load = () => import("./worktree-commands.js");
  wt.command("enter")
    .description("Create (or re-enter a kept) worktree .keel/worktrees/NAME on branch keel/NAME; later commands work inside it")
    .argument("[name]", "worktree name: letters, digits, . _ - (at most 64); default generated")
    .action(async (name: string | undefined) => (await load()).worktreeEnterCommand(ctx, name));
  wt.command("exit")
    .description("Leave the active worktree: keep it, merge it into the original branch, or discard it")
    .addOption(new Option("--action <action>", "what to do with the worktree").choices(["keep", "merge", "discard"]).makeOptionMandatory())
    .option("--force", "discard even with uncommitted or unmerged work (saved under refs/keel/discarded/ first)")
    .action(async (opts: { action: "keep" | "merge" | "discard"; force?: boolean }) => (await load()).worktreeExitCommand(ctx, opts));
  wt.command("status")
    .description("Show the active worktree and its pending work")
    .action(async () => (await load()).worktreeStatusCommand(ctx));
  wt.command("list")
    .description("List managed worktrees (--discarded: saved work of discarded worktrees and how to restore it)")
    .option("--discarded", "list refs/keel/discarded/* instead")
    .action(async (opts: { discarded?: boolean }) => (await load()).worktreeListCommand(ctx, opts));
  wt.command("gc")
    .description("Prune stale worktree entries whose directory is gone")
    .action(async () => (await load()).worktreeGcCommand(ctx));
};
