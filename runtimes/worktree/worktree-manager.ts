import {
  errorMessage,
  gitTopAt,
  type Host,
  inside,
  StateError,
  UsageError,
  withFileLock,
  workspaceDirIn,
  type WorktreeExitResult,
  type WorktreeInfo,
  type WorktreeService,
} from "../../core/index.js";
import { existsSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { addWorktree } from "./add-worktree.js";
import { currentBranch, gitAt, resolveRef, worktreePaths } from "./git-client.js";
import { checkWorktrees, goneMessage, ignoredWorktreeMessage, unrecordedMessage, type CheckedWorktrees, type IgnoredWorktree } from "./worktree-check.js";
import { assertWorktreeName, defaultWorktreeName } from "./worktree-name.js";
import { leaveWorktree } from "./leave-worktree.js";
import { changedSinceBase, listRows, pruneRecords, toInfo, type WorktreeAction, type WorktreeListRow, type WorktreeStatusReport } from "./worktree-records.js";
import { emptyWorktreeState, pushHistory, readWorktreeState, updateWorktreeState, type WorktreeRecord, type WorktreeState } from "./worktree-state.js";

/**
 * Manages keel's git worktrees (`.keel/worktrees/<name>` on branch `keel/<name>`) for one host.
 * The active worktree is workspace state in `.keel/state/worktrees.json`, so a later process
 * starts inside it. That file can be committed by a repository, so no record is believed: only
 * records `checkWorktrees` validates (derived path, listed by git) are ever entered, merged,
 * discarded or removed. Implements the shared `WorktreeService`.
 */
export class WorktreeManager implements WorktreeService {
  private state: WorktreeState = emptyWorktreeState();
  private checked: CheckedWorktrees = { valid: new Map(), ignored: [] };

  constructor(private readonly host: Host) {}

  private get file(): string {
    return this.host.statePath("worktrees.json");
  }

  /**
   * Loads and checks the state; reports ignored records (error diagnostics); moves the host into the
   * active worktree, or, when its directory vanished, sets `host.activeDirError` so tool calls fail
   * instead of running in the main checkout. Never throws.
   */
  async load(signal?: AbortSignal): Promise<void> {
    try {
      await this.refresh(signal);
    } catch (error) {
      this.host.diagnostics.error("worktree", errorMessage(error), { file: this.file });
      return;
    }
    for (const bad of this.checked.ignored)
      this.host.diagnostics.error("worktree", this.ignoredMessage(bad), { file: this.file, path: `worktrees[${bad.index}]` });
    const active = this.activeRecord();
    if (!active) return;
    if (existsSync(active.path)) this.host.activeDir = workspaceDirIn(active.path, this.host.workspace.root);
    else {
      this.host.activeDirError = goneMessage(active);
      this.host.diagnostics.error("worktree", this.host.activeDirError, { file: this.file });
    }
  }

  /** The active worktree of this workspace, if any (validated, and its directory exists). */
  active(): WorktreeInfo | undefined {
    const rec = this.activeRecord();
    return rec && existsSync(rec.path) ? toInfo(rec) : undefined;
  }

  /** Creates `.keel/worktrees/<name>` on a new branch `keel/<name>` from HEAD without activating it. The name is checked first. */
  async create(name: string, signal?: AbortSignal): Promise<WorktreeInfo> {
    return toInfo(await this.make(name, "created", signal));
  }

  /** Enters a worktree (creating it, or re-entering a kept one) and makes it the active directory. One at a time: losing a race to another process is a StateError (exit 1). */
  async enter(name: string | undefined, signal?: AbortSignal): Promise<WorktreeInfo> {
    if (name !== undefined) assertWorktreeName(name);
    await this.refresh(signal);
    const current = this.activeRecord();
    const around = this.enclosing(this.host.workspace.cwd);
    if (around)
      throw new UsageError(
        `keel is running inside managed worktree "${around.name}" (${around.path}); worktrees do not nest. Run keel from the main checkout (${this.host.workspace.root}), or work in "${around.name}" directly.`,
      );
    if (current && !existsSync(current.path)) throw new UsageError(goneMessage(current));
    if (current)
      throw new UsageError(`Worktree "${current.name}" is already active (${current.path}). Leave it first: keel worktree exit --action keep|merge|discard.`);
    if (name !== undefined) this.refuseIgnored(name);
    const existing = name === undefined ? undefined : this.checked.valid.get(name)?.record;
    let rec: WorktreeRecord;
    if (existing && existsSync(existing.path)) rec = existing;
    else {
      if (existing)
        throw new UsageError(`Worktree "${name}" is recorded but its directory ${existing.path} is gone. Run \`keel worktree gc\`, then enter it again.`);
      // Recorded as "created" until it is really the active one, so a lost race leaves no inactive "entered" record.
      rec = await this.make(name ?? defaultWorktreeName(), "created", signal);
    }
    await this.save((s) => {
      if (s.active && s.active !== rec.name)
        throw new StateError(
          `Worktree "${s.active}" became active meanwhile (another keel process). "${rec.name}" was not entered; enter it after leaving "${s.active}".`,
          this.file,
        );
      const stored = s.worktrees.find((w) => w.name === rec.name);
      if (stored) stored.mode = "entered";
      s.active = rec.name;
    });
    this.host.activeDir = workspaceDirIn(rec.path, this.host.workspace.root);
    return toInfo(rec);
  }

  /** Leaves the active worktree with keep, merge or discard. A refused merge or discard leaves it active. */
  async exit(action: WorktreeAction, opts: { force?: boolean; signal?: AbortSignal } = {}): Promise<WorktreeExitResult> {
    await this.refresh(opts.signal);
    const rec = this.activeRecord();
    if (!rec) throw new UsageError("No worktree is active. Enter one with `keel worktree enter [NAME]`; `keel worktree list` shows the managed ones.");
    return this.finish(rec.name, action, opts);
  }

  /** Finishes a managed worktree: keep (leave it and its branch), merge, or discard (saving work first when forced). */
  async finish(name: string, action: WorktreeAction, opts: { force?: boolean; signal?: AbortSignal } = {}): Promise<WorktreeExitResult> {
    assertWorktreeName(name);
    await this.refresh(opts.signal);
    this.refuseIgnored(name);
    const rec = this.checked.valid.get(name)?.record;
    if (!rec) throw new UsageError(`No managed worktree named "${name}". Run \`keel worktree list\` to see them.`);
    const root = await this.repoRoot(opts.signal);
    const outcome = await leaveWorktree(rec, action, root, {
      force: Boolean(opts.force),
      active: this.state.active === rec.name,
      env: this.host.env,
      signal: opts.signal,
    });
    const { result: left } = await this.save((s) => {
      const wasActive = s.active === rec.name;
      if (outcome.ok && wasActive) s.active = null;
      if (outcome.ok && action !== "keep") s.worktrees = s.worktrees.filter((w) => w.name !== rec.name);
      pushHistory(s, {
        name: rec.name,
        branch: rec.branch,
        baseBranch: rec.baseBranch,
        action,
        ok: outcome.ok,
        at: new Date().toISOString(),
        message: outcome.message,
        savedRef: outcome.savedRef,
      });
      return outcome.ok && wasActive;
    });
    if (outcome.ok && action !== "keep") this.checked.valid.delete(rec.name);
    if (left) this.host.activeDirError = undefined;
    const { cwd, root: home } = this.host.workspace;
    if (outcome.ok && inside(rec.path, this.host.activeDir)) this.host.activeDir = inside(rec.path, cwd) ? home : cwd;
    return { name: rec.name, action, ...outcome };
  }

  /** The active worktree with its uncommitted files, unmerged commits and changed files. */
  async status(signal?: AbortSignal): Promise<WorktreeStatusReport> {
    await this.refresh(signal);
    const rec = this.activeRecord();
    const managed = this.checked.valid.size;
    if (!rec) return { active: null, managed };
    if (!existsSync(rec.path)) return { active: null, managed, problem: goneMessage(rec) };
    const { pendingWork } = await import("./discard-worktree.js");
    const { uncommitted, unmerged } = await pendingWork(rec, await this.repoRoot(signal), this.host.env, signal);
    return { active: { ...toInfo(rec), uncommitted, unmergedCommits: unmerged, changedFiles: await changedSinceBase(rec, this.host.env, signal) }, managed };
  }

  /** Every managed worktree, flagged active and existing, then the ignored entries (with the reason; their paths are never touched). */
  async list(signal?: AbortSignal): Promise<WorktreeListRow[]> {
    await this.refresh(signal);
    return listRows(this.state, this.checked);
  }

  /** Recent finished worktrees (bounded history), newest last. */
  history(): WorktreeState["history"] {
    return [...this.state.history];
  }

  /**
   * Prunes records whose directory is gone (and git's own stale worktree entries) and drops ignored
   * records from the state file, without touching anything at their paths; returns the names.
   * Branches are kept.
   */
  async gc(signal?: AbortSignal): Promise<string[]> {
    const root = await this.repoRoot(signal);
    await (await gitAt(root, { env: this.host.env, signal })).raw(["worktree", "prune"]);
    const { result } = await this.save(async (s) => {
      const checked = await this.check(s, signal);
      const pruned = pruneRecords(s, checked);
      this.checked = { valid: new Map([...checked.valid].filter(([, c]) => c.exists)), ignored: [] };
      return pruned;
    });
    if (!this.activeRecord()) this.host.activeDirError = undefined;
    return result;
  }

  /**
   * Top level of the workspace's git repository; UsageError when the workspace is not a git
   * repository. git starts from the folder holding the repository's `.git` (`gitTopAt`), never
   * from a workspace root without one, which git would take for a bare repository.
   */
  async repoRoot(signal?: AbortSignal): Promise<string> {
    const notRepo = () => new UsageError(`${this.host.workspace.root} is not a git repository. Worktrees need git: run \`git init\` and commit once.`);
    const top = gitTopAt(this.host.workspace.root);
    if (top === undefined) throw notRepo();
    const git = await gitAt(top, { env: this.host.env, signal });
    try {
      return (await git.raw(["rev-parse", "--show-toplevel"])).trim();
    } catch {
      throw notRepo();
    }
  }

  private async make(name: string, mode: WorktreeRecord["mode"], signal?: AbortSignal): Promise<WorktreeRecord> {
    assertWorktreeName(name);
    const path = join(this.host.workspace.stateDir, "worktrees", name);
    const branch = `keel/${name}`;
    const root = await this.repoRoot(signal);
    const git = await gitAt(root, { env: this.host.env, signal });
    this.host.ensureStateDir("worktrees");
    // keel processes of this workspace make worktrees one at a time, from the checks to the record: concurrent
    // `git worktree add` in one repository can fail inside git ("failed to read .git/worktrees/…"), and a second
    // process making the same name would pass checks the first has not yet made false.
    return withFileLock(this.host.statePath("worktree-add"), async () => {
      await this.refresh(signal);
      if (this.state.worktrees.some((w) => w.name === name))
        throw new UsageError(`A worktree named "${name}" already exists (${path}). Pick another name, or finish it first.`);
      if (existsSync(path)) throw new UsageError(unrecordedMessage(name, path, branch));
      const baseCommit = await resolveRef(git, "HEAD");
      if (!baseCommit) throw new UsageError(`The repository at ${root} has no commits yet. Commit once, then create a worktree.`);
      if (await resolveRef(git, `refs/heads/${branch}`))
        throw new UsageError(
          `Branch ${branch} already exists. Pick another worktree name, or delete the branch (\`git branch -D ${branch}\`) if you no longer need it.`,
        );
      const baseBranch = (await currentBranch(git)) ?? baseCommit;
      await addWorktree(git, { root, path, branch, baseCommit });
      const rec: WorktreeRecord = { name, path, branch, baseBranch, baseCommit, createdAt: new Date().toISOString(), mode };
      await this.save((s) => {
        s.worktrees.push(rec);
      });
      this.checked.valid.set(name, { record: rec, exists: true });
      return rec;
    });
  }

  /** The managed worktree directory (of this workspace) `dir` lies in, if any. */
  private enclosing(dir: string): { name: string; path: string } | undefined {
    const base = join(this.host.workspace.stateDir, "worktrees");
    if (!inside(base, dir) || dir === base) return undefined;
    const name = relative(base, dir).split(sep)[0]!;
    return { name, path: join(base, name) };
  }

  /** The active record, only when it passed the checks (its path derived from its name). */
  private activeRecord(): WorktreeRecord | undefined {
    return this.state.active ? this.checked.valid.get(this.state.active)?.record : undefined;
  }

  /** Re-reads the state file and re-checks every record. Throws StateError for an unreadable file. */
  private async refresh(signal?: AbortSignal): Promise<void> {
    this.state = await readWorktreeState(this.file);
    this.checked = await this.check(this.state, signal);
  }

  private check(state: WorktreeState, signal?: AbortSignal): Promise<CheckedWorktrees> {
    return checkWorktrees(state, join(this.host.workspace.stateDir, "worktrees"), async () =>
      worktreePaths(await gitAt(await this.repoRoot(signal), { env: this.host.env, signal })),
    );
  }

  /** UsageError when `name` is only known from an ignored record. */
  private refuseIgnored(name: string): void {
    const bad = this.checked.ignored.find((b) => b.name === name);
    if (bad && !this.checked.valid.has(name)) throw new UsageError(this.ignoredMessage(bad));
  }

  private ignoredMessage(bad: IgnoredWorktree): string {
    return ignoredWorktreeMessage(bad, this.file, this.state.active === bad.name);
  }

  private async save<R>(fn: (s: WorktreeState) => R | Promise<R>): Promise<{ result: R }> {
    this.host.ensureStateDir("state");
    const { state, result } = await updateWorktreeState(this.file, fn);
    this.state = state;
    return { result };
  }
}
