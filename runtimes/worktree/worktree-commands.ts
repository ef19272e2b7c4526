import { type CliContext, table, terminalText } from "../../core/cli/index.js";
import { type Host, UsageError } from "../../core/index.js";
import { listDiscardedRefs } from "./discarded-refs.js";
import type { WorktreeManager } from "./worktree-manager.js";
import type { WorktreeListRow } from "./worktree-records.js";
import { assertWorktreeName } from "./worktree-name.js";

function managerOf(host: Host): WorktreeManager {
  const manager = host.service("worktree-manager");
  if (!manager) throw new UsageError("The worktree runtime is not loaded in this build of keel.");
  return manager;
}

/** `keel worktree enter [NAME]`: the name is validated before a host (or anything on disk) is touched. */
export async function worktreeEnterCommand(ctx: CliContext, name: string | undefined): Promise<void> {
  if (name !== undefined) assertWorktreeName(name);
  await ctx.withHost(async (host) => {
    const info = await managerOf(host).enter(name, ctx.signal);
    ctx.print(
      info,
      () =>
        `Entered worktree "${info.name}" at ${info.path}\nbranch ${info.branch} (from ${info.baseBranch} @ ${info.baseCommit.slice(0, 7)})\nLater keel commands in this workspace work inside it until \`keel worktree exit --action keep|merge|discard\`.`,
    );
  });
}

/** `keel worktree exit --action keep|merge|discard [--force]`: exit 1 when the merge or discard was refused. */
export async function worktreeExitCommand(ctx: CliContext, opts: { action: "keep" | "merge" | "discard"; force?: boolean }): Promise<void> {
  await ctx.withHost(async (host) => {
    const result = await managerOf(host).exit(opts.action, { force: opts.force, signal: ctx.signal });
    ctx.print(result, () => (result.ok ? `✓ ${result.message}` : undefined));
    if (!result.ok) {
      if (!ctx.globals().json) ctx.io.stderr.write(terminalText(`✗ ${result.message}\n`));
      ctx.setExitCode(1);
    }
  });
}

/** `keel worktree status`. */
export async function worktreeStatusCommand(ctx: CliContext): Promise<void> {
  await ctx.withHost(async (host) => {
    const status = await managerOf(host).status(ctx.signal);
    ctx.print(status, () => {
      const a = status.active;
      if (status.problem) return status.problem;
      if (!a) return `No worktree is active. ${status.managed} managed worktree(s); see \`keel worktree list\`.`;
      const list = (xs: string[]) => (xs.length ? xs.join(", ") : "none");
      return [
        `Active worktree: ${a.name}`,
        `  path:      ${a.path}`,
        `  branch:    ${a.branch} (from ${a.baseBranch})`,
        `  uncommitted: ${list(a.uncommitted)}`,
        `  unmerged commits: ${a.unmergedCommits}`,
        `  changed since base: ${list(a.changedFiles)}`,
      ].join("\n");
    });
  });
}

/** `keel worktree list [--discarded]`. */
export async function worktreeListCommand(ctx: CliContext, opts: { discarded?: boolean }): Promise<void> {
  await ctx.withHost(async (host) => {
    const manager = managerOf(host);
    if (opts.discarded) {
      const refs = await listDiscardedRefs(await manager.repoRoot(ctx.signal), host.env, ctx.signal);
      ctx.print({ discarded: refs }, () => {
        if (!refs.length) return "No discarded work is saved (refs/keel/discarded/ is empty).";
        const rows = refs.map((r) => [r.ref, r.commit, r.date, r.subject]);
        return `${table(["REF", "COMMIT", "DATE", "SUBJECT"], rows, 80)}\n\nRestore one as a branch:  git branch restored/<label> <REF>   e.g. ${refs[0]!.restore}\nInspect:  git show --stat <REF>     Delete:  git update-ref -d <REF>`;
      });
      return;
    }
    const rows = await manager.list(ctx.signal);
    ctx.print({ worktrees: rows }, () => {
      if (!rows.length) return "No managed worktrees. Create one with `keel worktree enter NAME`.";
      const where = (r: WorktreeListRow) => (r.ignored ? `${r.path} (ignored: ${r.ignored})` : r.exists ? r.path : `${r.path} (gone)`);
      const out = table(
        ["", "NAME", "BRANCH", "FROM", "MODE", "PATH"],
        rows.map((r) => [r.active ? "*" : "", r.name, r.branch, r.baseBranch, r.mode, where(r)]),
        80,
      );
      return rows.some((r) => !r.exists)
        ? `${out}\n\nSome entries are stale or ignored; run \`keel worktree gc\` to drop them (it never touches an ignored entry's path).`
        : out;
    });
  });
}

/** `keel worktree gc`: prunes entries whose directory is gone. */
export async function worktreeGcCommand(ctx: CliContext): Promise<void> {
  await ctx.withHost(async (host) => {
    const pruned = await managerOf(host).gc(ctx.signal);
    ctx.print({ pruned }, () =>
      pruned.length
        ? `Pruned ${pruned.length} stale worktree entr${pruned.length === 1 ? "y" : "ies"}: ${pruned.join(", ")} (their branches were kept).`
        : "Nothing to prune.",
    );
  });
}
