import { readJsonState, updateJsonState, type WorktreeInfo } from "../../core/index.js";

/** How many finished-worktree entries the history keeps. */
export const WORKTREE_HISTORY_LIMIT = 50;

/** A managed worktree that still exists (or should): what `enter`/`create` made. */
export interface WorktreeRecord extends WorktreeInfo {
  /** ISO time it was created. */
  createdAt: string;
  /** `entered` (by `enter`, may be active) or `created` (by `create`, for sub-agents and workflows). */
  mode: "entered" | "created";
}

/** One finished worktree (kept, merged or discarded). */
export interface WorktreeHistoryEntry {
  name: string;
  branch: string;
  baseBranch: string;
  action: "keep" | "merge" | "discard" | "gc";
  ok: boolean;
  at: string;
  message: string;
  savedRef?: string;
}

/** `.keel/state/worktrees.json`: the active worktree of the workspace, live records, bounded history. */
export interface WorktreeState {
  version: 1;
  /** Name of the active worktree (later commands operate inside it), or null. */
  active: string | null;
  worktrees: WorktreeRecord[];
  history: WorktreeHistoryEntry[];
}

/** An empty state. */
export function emptyWorktreeState(): WorktreeState {
  return { version: 1, active: null, worktrees: [], history: [] };
}

/** Fills missing fields of a state read from disk (older or hand-edited files). */
export function normalizeWorktreeState(raw: Partial<WorktreeState> | null | undefined): WorktreeState {
  const s = raw && typeof raw === "object" ? raw : {};
  return {
    version: 1,
    active: typeof s.active === "string" ? s.active : null,
    worktrees: Array.isArray(s.worktrees) ? s.worktrees.filter((w) => w && typeof w.name === "string" && typeof w.path === "string") : [],
    history: Array.isArray(s.history) ? s.history.slice(-WORKTREE_HISTORY_LIMIT) : [],
  };
}

/** Reads the state file. Throws StateError (never overwrites) when it is not valid JSON. */
export async function readWorktreeState(file: string): Promise<WorktreeState> {
  return normalizeWorktreeState(await readJsonState<Partial<WorktreeState>>(file, emptyWorktreeState()));
}

/** Read-modify-write under the file lock; `fn` mutates the state in place and returns a result. */
export async function updateWorktreeState<R>(file: string, fn: (state: WorktreeState) => R | Promise<R>): Promise<{ state: WorktreeState; result: R }> {
  return updateJsonState<Partial<WorktreeState>, { state: WorktreeState; result: R }>(file, emptyWorktreeState(), async (raw) => {
    const state = normalizeWorktreeState(raw);
    const result = await fn(state);
    state.history = state.history.slice(-WORKTREE_HISTORY_LIMIT);
    return { value: state, result: { state, result } };
  });
}

/** Appends a history entry (the caller's update writes it). */
export function pushHistory(state: WorktreeState, entry: WorktreeHistoryEntry): void {
  state.history.push(entry);
}
