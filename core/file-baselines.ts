import { join } from "node:path";
import { updateJsonState } from "./state/json-file.js";
import { readJsonState } from "./state/json-file.js";
import type { FileBaseline, FileBaselineStore } from "./types.js";

/** In-memory baselines (sessions keep them in their state; tests). */
export class MemoryBaselineStore implements FileBaselineStore {
  readonly map = new Map<string, FileBaseline>();
  /** The baseline of a path. */
  async get(p: string) {
    return this.map.get(p);
  }
  /** Records a baseline. */
  async set(p: string, b: FileBaseline) {
    this.map.set(p, b);
  }
}

/**
 * Baselines for standalone `keel call`s, kept in `.keel/state/read-baselines.json` so a read
 * in one command satisfies an edit in the next. Loaded on first use; written (merged under a
 * lock) by `save()` when the host closes, so reads on the hot path never touch the disk twice.
 */
export class PersistentBaselineStore implements FileBaselineStore {
  private loaded?: Promise<Map<string, FileBaseline>>;
  private readonly dirty = new Map<string, FileBaseline>();

  constructor(private readonly stateDir: string) {}

  private get file(): string {
    return join(this.stateDir, "state", "read-baselines.json");
  }

  private load(): Promise<Map<string, FileBaseline>> {
    this.loaded ??= readJsonState<Record<string, FileBaseline>>(this.file, {})
      .catch(() => ({}))
      .then((o) => new Map(Object.entries(o)));
    return this.loaded;
  }

  /** The baseline of a path (dirty entries first, then the file). */
  async get(p: string): Promise<FileBaseline | undefined> {
    return this.dirty.get(p) ?? (await this.load()).get(p);
  }

  /** Records a baseline in memory; persisted by `save()`. */
  async set(p: string, b: FileBaseline): Promise<void> {
    this.dirty.set(p, b);
  }

  /** Merges dirty baselines into the file (bounded to the newest 500 entries). */
  async save(): Promise<void> {
    if (this.dirty.size === 0) return;
    const entries = [...this.dirty];
    this.dirty.clear();
    await updateJsonState<Record<string, FileBaseline>, void>(this.file, {}, (cur) => {
      const merged = { ...(typeof cur === "object" && cur ? cur : {}) };
      for (const [k, v] of entries) {
        delete merged[k];
        merged[k] = v;
      }
      const keys = Object.keys(merged);
      for (const k of keys.slice(0, Math.max(0, keys.length - 500))) delete merged[k];
      return { value: merged, result: undefined };
    });
  }
}
