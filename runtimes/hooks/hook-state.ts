import { join } from "node:path";
import { createHash, readJsonState, updateJsonState } from "../../core/index.js";

/** The last outcome of one hook, as `keel hooks` shows it. */
export interface HookLastOutcome {
  event: string;
  /** ISO time the hook ended. */
  at: string;
  exitCode: number | null;
  decision: string;
  durationMs: number;
  error?: string;
}

/** The key of a hook in the state file: its file and JSON path. */
export function hookKey(file: string, path: string): string {
  return `${file}#${path}`;
}

/**
 * The last outcome of every hook that ran in this workspace, so a hook that "silently does not fire"
 * can be told apart from one that fires and fails. The workspace's hooks' in `.keel/state/hooks.json`;
 * your own hooks' (`$KEEL_HOME`, user-level plugins) under `$KEEL_HOME` (`userHookStateFile`), one file
 * per workspace: a repository can commit `.keel/`, and a record there must not speak for your hooks
 * (a guard of yours that never ran shown as having blocked). Written once per process (at shutdown), under each file's lock.
 */
export class HookStateStore {
  /**
   * `isUser` tells your hooks' keys (see hookKey) from the workspace's; `prepare` creates keel's state
   * folder in the workspace (with its .gitignore) before the first write there.
   */
  constructor(
    private readonly file: string,
    private readonly userFile: string,
    private readonly isUser: (key: string) => boolean,
    private readonly prepare: () => void = () => undefined,
  ) {}

  /** Records outcomes (keyed by hookKey), each in its level's file. Never throws: a state file keel cannot write only loses the record. */
  async record(outcomes: Record<string, HookLastOutcome>): Promise<void> {
    const entries = Object.entries(outcomes).map(([key, o]) => [key, o.error !== undefined ? { ...o, error: shownHookError(o.error) } : o] as const);
    const user = entries.filter(([key]) => this.isUser(key));
    const workspace = entries.filter(([key]) => !this.isUser(key));
    if (workspace.length) await recordIn(this.file, Object.fromEntries(workspace), this.prepare);
    if (user.length) await recordIn(this.userFile, Object.fromEntries(user));
  }

  /**
   * Every recorded outcome, each read from its level's file only; an unreadable file reads as none, and a
   * record that is not as keel writes it (`checkedOutcome`; a file edited by hand or committed) as no record.
   */
  async read(): Promise<Record<string, HookLastOutcome>> {
    const [workspace, user] = await Promise.all([this.file, this.userFile].map((f) => readJsonState<unknown>(f, {}).catch(() => ({}))));
    const out: Record<string, HookLastOutcome> = {};
    for (const [records, mine] of [
      [workspace, false],
      [user, true],
    ] as const) {
      if (!isRecord(records)) continue;
      for (const [key, raw] of Object.entries(records)) {
        const last = checkedOutcome(raw);
        if (last && this.isUser(key) === mine) out[key] = last;
      }
    }
    return out;
  }
}

/** The file under `$KEEL_HOME` (`state/hooks/<hash of the workspace root>.json`) holding your hooks' last outcomes in the workspace at `root`. */
export function userHookStateFile(keelHome: string, root: string): string {
  return join(keelHome, "state", "hooks", `${createHash("sha256").update(root).digest("hex").slice(0, 16)}.json`);
}

/** Most characters of a hook's `error` kept and shown (a hook's stderr, or a committed hooks.json, can be megabytes). */
export const MAX_HOOK_ERROR_CHARS = 500;

/**
 * A hook's error as keel keeps and shows it: on one line (control, format and line-separator characters become a
 * blank, runs of blanks one), at most MAX_HOOK_ERROR_CHARS characters, ending with "…" when cut. Never throws.
 */
export function shownHookError(error: string): string {
  const line = error
    .slice(0, MAX_HOOK_ERROR_CHARS * 4)
    .replace(/[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\s]+/gu, " ")
    .trim();
  const chars = [...line];
  return chars.length > MAX_HOOK_ERROR_CHARS ? `${chars.slice(0, MAX_HOOK_ERROR_CHARS - 1).join("")}…` : line;
}

/** A recorded outcome when each field is of its type (`error` optional; its text fields bounded by `shownHookError`), else undefined. Never throws. */
export function checkedOutcome(raw: unknown): HookLastOutcome | undefined {
  if (!isRecord(raw)) return undefined;
  const { event, at, exitCode, decision, durationMs, error } = raw;
  if (typeof event !== "string" || typeof at !== "string" || typeof decision !== "string" || typeof durationMs !== "number") return undefined;
  if (exitCode !== null && typeof exitCode !== "number") return undefined;
  if (error !== undefined && typeof error !== "string") return undefined;
  const [e, a, d] = [event, at, decision].map(shownHookError);
  return { event: e!, at: a!, exitCode, decision: d!, durationMs, ...(error !== undefined ? { error: shownHookError(error) } : {}) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

async function recordIn(file: string, outcomes: Record<string, HookLastOutcome>, prepare: () => void = () => undefined): Promise<void> {
  try {
    prepare();
    // A file that is not a record of outcomes (a list, a string) is replaced rather than spread into one.
    await updateJsonState<unknown, void>(file, {}, (current) => ({ value: { ...(isRecord(current) ? current : {}), ...outcomes }, result: undefined }));
  } catch {
    // best effort: the events log has the same facts
  }
}
