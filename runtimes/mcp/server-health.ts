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

/**
 * True while a start-up timeout keeps the server from being started again. A back-off ending more than
 * STARTUP_BACKOFF_MS from now was not set by this clock (it was put back: NTP, a restored VM; or the record was
 * written by hand) and is over: it would otherwise skip the server for as long as the clock was put back.
 */
export function backingOff(health: ServerHealth, now = Date.now()): boolean {
  return health.backoffUntil !== undefined && health.backoffUntil > now && health.backoffUntil - now <= STARTUP_BACKOFF_MS;
}

/** The most of a recorded error or stderr tail kept when a record is read (keel writes far less). */
const MAX_RECORDED_TEXT = 16 * 1024;

/**
 * A health record as read from its file, checked field by field: what is not of its type (a record written by
 * hand, by another version, or committed in a repository's `.keel/`) reads as absent, texts are cut to
 * MAX_RECORDED_TEXT, and failure times after `now` (a clock put back since they were recorded) are dropped: they
 * would count towards the breaker for as long as the clock was put back. Never throws.
 */
export function checkedHealth(raw: unknown, now = Date.now()): ServerHealth {
  const record = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {};
  const text = (value: unknown) => (typeof value === "string" ? value.slice(-MAX_RECORDED_TEXT) : undefined);
  const failures = Array.isArray(record.failures) ? record.failures.filter((t): t is number => typeof t === "number" && Number.isFinite(t) && t <= now) : [];
  const lastError = text(record.lastError);
  const stderrTail = text(record.stderrTail);
  const backoffUntil = typeof record.backoffUntil === "number" && Number.isFinite(record.backoffUntil) ? record.backoffUntil : undefined;
  return {
    failures,
    breakerOpen: record.breakerOpen === true,
    ...(lastError !== undefined ? { lastError } : {}),
    ...(stderrTail !== undefined ? { stderrTail } : {}),
    ...(backoffUntil !== undefined ? { backoffUntil } : {}),
  };
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
      return checkedHealth(Object.hasOwn(data?.servers ?? {}, name) ? data.servers[name] : undefined);
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
    const next = (raw: unknown): ServerHealth => {
      const cur = checkedHealth(raw, now);
      const failures = [...cur.failures.filter((t) => now - t < CRASH_WINDOW_MS), now];
      const backoffUntil = startupTimeout ? now + STARTUP_BACKOFF_MS : cur.backoffUntil;
      return {
        failures,
        breakerOpen: cur.breakerOpen || failures.length >= CRASH_LIMIT,
        lastError: error,
        stderrTail,
        ...(backoffUntil !== undefined && backingOff({ failures, breakerOpen: false, backoffUntil }, now) ? { backoffUntil } : {}),
      };
    };
    try {
      this.ensure();
      return await updateJsonState<HealthFile, ServerHealth>(this.file, { servers: {} }, (cur) => {
        const servers = typeof cur?.servers === "object" && cur.servers !== null && !Array.isArray(cur.servers) ? cur.servers : {};
        const h = next(Object.hasOwn(servers, name) ? servers[name] : undefined);
        return { value: { servers: { ...servers, [name]: h } }, result: h };
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
