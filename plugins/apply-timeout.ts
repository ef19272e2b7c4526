import { MAX_TIMER_MS } from "../core/index.js";

/** How long one plugin's `apply(keel)` may take before the host opens without waiting for it. */
const DEFAULT_APPLY_TIMEOUT_MS = 10_000;
/** Overrides the apply bound, in milliseconds (read from the host's environment; tests use a short one). */
export const APPLY_TIMEOUT_ENV = "KEEL_PLUGIN_APPLY_TIMEOUT_MS";

/**
 * The apply bound: `KEEL_PLUGIN_APPLY_TIMEOUT_MS` when it is a positive number (unset or empty: 10 s),
 * and, when the value set is not what is used, why: not a positive number (the default is used),
 * or longer than a timer can wait (~24.8 days; a longer delay would fire at once, so it is capped).
 */
export function applyTimeout(env: NodeJS.ProcessEnv): { ms: number; problem?: string } {
  const text = env[APPLY_TIMEOUT_ENV]?.trim();
  if (!text) return { ms: DEFAULT_APPLY_TIMEOUT_MS };
  const raw = Number(text);
  if (Number.isNaN(raw) || raw <= 0)
    return {
      ms: DEFAULT_APPLY_TIMEOUT_MS,
      problem: `${APPLY_TIMEOUT_ENV} is ${JSON.stringify(text)}, not a positive number of milliseconds; the default ${DEFAULT_APPLY_TIMEOUT_MS} ms is used. Set it to a positive number (e.g. 30000), or unset it.`,
    };
  if (raw > MAX_TIMER_MS)
    return {
      ms: MAX_TIMER_MS,
      problem: `${APPLY_TIMEOUT_ENV} is ${text} ms, more than the longest timeout keel can set (${MAX_TIMER_MS} ms, about 24.8 days); ${MAX_TIMER_MS} ms is used. Set at most ${MAX_TIMER_MS}.`,
    };
  return { ms: raw };
}

/** Resolves true when `work` settles within `ms` (rethrowing its error), false when the bound passes first. */
export async function withinBound(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<false>((resolveBound) => {
    timer = setTimeout(() => resolveBound(false), ms);
    timer.unref();
  });
  // A late rejection after the bound must not become an unhandled rejection.
  work.catch(() => undefined);
  try {
    return await Promise.race([work.then(() => true as const), bound]);
  } finally {
    clearTimeout(timer);
  }
}
