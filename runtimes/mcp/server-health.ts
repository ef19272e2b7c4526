import { readJsonState, updateJsonState } from "../../core/index.js";

/** Crashes within this window count towards the breaker. */
export const CRASH_WINDOW_MS = 60_000;
/** Crashes within the window that open the breaker. */
export const CRASH_LIMIT = 3;
/** After a start-up timeout, how long keel skips the server instead of waiting for it again. */
export const STARTUP_BACKOFF_MS = 5 * 60_000;

/** Persistent health of one server: recent failures and whether its breaker is open. */
export interface ServerHealth {
  failures: number[];
  breakerOpen: boolean;
  lastError?: string;
  /** stderr tail of the last failure (shown while the breaker keeps the server from starting). */
  stderrTail?: string;
  /** Until when (ms since the epoch) keel does not start the server: set by a start-up timeout. */
  backoffUntil?: number;
}

/** True while a start-up timeout keeps the server from being started again. */
export function backingOff(health: ServerHealth, now = Date.now()): boolean {
  return health.backoffUntil !== undefined && health.backoffUntil > now;
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

  /**
   * Records one failure; returns the new health: the breaker opens after CRASH_LIMIT failures within
   * CRASH_WINDOW_MS, and a start-up timeout (`startupTimeout`) makes keel skip the server for
   * STARTUP_BACKOFF_MS (a hanging server costs its timeout once, not on every command).
   */
  async recordFailure(name: string, error: string, stderrTail = "", now = Date.now(), startupTimeout = false): Promise<ServerHealth> {
    const next = (cur: ServerHealth | undefined): ServerHealth => {
      const failures = [...(cur?.failures ?? []).filter((t) => now - t < CRASH_WINDOW_MS), now];
      const backoffUntil = startupTimeout ? now + STARTUP_BACKOFF_MS : cur?.backoffUntil;
      return {
        failures,
        breakerOpen: Boolean(cur?.breakerOpen) || failures.length >= CRASH_LIMIT,
        lastError: error,
        stderrTail,
        ...(backoffUntil !== undefined && backoffUntil > now ? { backoffUntil } : {}),
      };
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
