import { readJsonState, updateJsonState } from "../../core/index.js";

/** Crashes within this window count towards the breaker. */
export const CRASH_WINDOW_MS = 60_000;
/** Crashes within the window that open the breaker. */
export const CRASH_LIMIT = 3;

/** Persistent health of one server: recent failures and whether its breaker is open. */
export interface ServerHealth {
  failures: number[];
  breakerOpen: boolean;
  lastError?: string;
  /** stderr tail of the last failure (shown while the breaker keeps the server from starting). */
  stderrTail?: string;
}

interface HealthFile {
  servers: Record<string, ServerHealth>;
}

/**
 * Failure records per server in `.keel/state/mcp/health.json`, shared by every keel process of
 * the workspace, so the breaker stays open across CLI invocations until `keel mcp restart NAME`.
 */
export class HealthStore {
  /** `ensure` runs before the first write (creates `.keel/` with its `.gitignore`). */
  constructor(
    private readonly file: string,
    private readonly ensure: () => void = () => undefined,
  ) {}

  /** Health of a server (empty when unknown). Never throws. */
  async get(name: string): Promise<ServerHealth> {
    try {
      const data = await readJsonState<HealthFile>(this.file, { servers: {} });
      return data.servers?.[name] ?? { failures: [], breakerOpen: false };
    } catch {
      return { failures: [], breakerOpen: false };
    }
  }

  /** Records one failure; returns the new health (breaker open after CRASH_LIMIT within CRASH_WINDOW_MS). */
  async recordFailure(name: string, error: string, stderrTail = "", now = Date.now()): Promise<ServerHealth> {
    const next = (cur: ServerHealth | undefined): ServerHealth => {
      const failures = [...(cur?.failures ?? []).filter((t) => now - t < CRASH_WINDOW_MS), now];
      return { failures, breakerOpen: Boolean(cur?.breakerOpen) || failures.length >= CRASH_LIMIT, lastError: error, stderrTail };
    };
    try {
      this.ensure();
      return await updateJsonState<HealthFile, ServerHealth>(this.file, { servers: {} }, (cur) => {
        const h = next(cur.servers?.[name]);
        return { value: { servers: { ...(cur.servers ?? {}), [name]: h } }, result: h };
      });
    } catch {
      return next(undefined);
    }
  }

  /** Clears a server's record (closes its breaker). */
  async reset(name: string): Promise<void> {
    await updateJsonState<HealthFile, void>(this.file, { servers: {} }, (cur) => {
      if (!cur.servers?.[name]) return { result: undefined };
      const { [name]: _gone, ...rest } = cur.servers;
      return { value: { servers: rest }, result: undefined };
    }).catch(() => undefined);
  }
}
