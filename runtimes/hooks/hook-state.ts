import { readJsonState, updateJsonState } from "../../core/index.js";

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
 * The last outcome of every hook that ran in this workspace (`.keel/state/hooks.json`), so a hook
 * that "silently does not fire" can be told apart from one that fires and fails. Written once per
 * process (at shutdown), under the file's lock.
 */
export class HookStateStore {
  /** `prepare` creates keel's state folder (with its .gitignore) before the first write. */
  constructor(
    private readonly file: string,
    private readonly prepare: () => void = () => undefined,
  ) {}

  /** Records outcomes (keyed by hookKey). Never throws: a state file keel cannot write only loses the record. */
  async record(outcomes: Record<string, HookLastOutcome>): Promise<void> {
    try {
      this.prepare();
      await updateJsonState<Record<string, HookLastOutcome>, void>(this.file, {}, (current) => ({ value: { ...current, ...outcomes }, result: undefined }));
    } catch {
      // best effort: the events log has the same facts
    }
  }

  /** Every recorded outcome; an unreadable file reads as none. */
  async read(): Promise<Record<string, HookLastOutcome>> {
    return readJsonState<Record<string, HookLastOutcome>>(this.file, {}).catch(() => ({}));
  }
}
