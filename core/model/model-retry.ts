import { ModelError } from "./model-error.js";
import type { ModelCallOptions, ModelResponse } from "./model-types.js";

/** Most retries of one model call `model.maxRetries` may ask for (a larger value is capped here). */
export const MAX_MODEL_RETRIES = 10;
/** Longest wait a server's `Retry-After` may ask for before keel retries; asked to wait longer, keel does not retry. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** A retry of a model call, as the caller hears of it before keel waits. */
export interface ModelRetry {
  /** 1 for the first retry. */
  attempt: number;
  maxRetries: number;
  /** How long keel waits before it (the server's `Retry-After`, else backoff). */
  delayMs: number;
  /** Why the attempt before it failed. */
  message: string;
}

/**
 * Runs `attempt` and, when it fails with a transient ModelError (connection error, timeout, 408/409/429/5xx,
 * a stalled or cut-off stream) before any text reached `options.onText`, runs it again, at most `maxRetries`
 * times: after the server's `Retry-After`/`retry-after-ms` (at most MAX_RETRY_AFTER_MS; asked for longer,
 * no retry), else after backoff (0.5 s doubling to 8 s, with jitter). Never after text was shown (the user
 * would see it twice), nor a 429 that says the quota is used up, nor a response with `x-should-retry: false`.
 * Each retry is announced to `options.onRetry` first; the wait ends at once, as "cancelled", when
 * `options.signal` aborts. The error that ends it says how many times keel tried.
 */
export async function withRetries(
  maxRetries: number,
  options: ModelCallOptions,
  attempt: (options: ModelCallOptions) => Promise<ModelResponse>,
): Promise<ModelResponse> {
  let shown = false;
  const onText = options.onText;
  const watched: ModelCallOptions = {
    ...options,
    onText: onText
      ? (delta) => {
          shown ||= delta !== "";
          onText(delta);
        }
      : undefined,
  };
  for (let retries = 0; ; retries++) {
    try {
      return await attempt(watched);
    } catch (error) {
      const delayMs = error instanceof ModelError && !shown && !options.signal?.aborted && retries < maxRetries ? retryDelay(error, retries) : undefined;
      if (delayMs === undefined) throw retries > 0 && error instanceof ModelError ? triedTimes(error, retries + 1) : error;
      options.onRetry?.({ attempt: retries + 1, maxRetries, delayMs, message: (error as ModelError).message });
      await pause(delayMs, options.signal);
    }
  }
}

/** How long to wait before retrying after `error` (`retries` retries so far), or undefined when it is not worth retrying. */
function retryDelay(error: ModelError, retries: number): number | undefined {
  if (!error.transient) return undefined;
  const cause = error.cause as { headers?: { get?: unknown }; code?: unknown } | undefined;
  // OpenAI's 429 for an account out of credit: waiting a few seconds does not help.
  if (cause?.code === "insufficient_quota") return undefined;
  const header = (name: string): string | undefined => {
    const get = cause?.headers?.get;
    const value: unknown = typeof get === "function" ? get.call(cause!.headers, name) : undefined;
    return typeof value === "string" ? value : undefined;
  };
  if (header("x-should-retry") === "false") return undefined;
  const asked = retryAfter(header("retry-after-ms"), header("retry-after"));
  if (asked !== undefined) return asked <= MAX_RETRY_AFTER_MS ? asked : undefined;
  return Math.round(Math.min(500 * 2 ** retries, 8000) * (1 - Math.random() * 0.25));
}

/** The wait a response asks for, in ms: `retry-after-ms`, else `Retry-After` in seconds or as an HTTP date; undefined when neither is usable. */
function retryAfter(ms: string | undefined, after: string | undefined): number | undefined {
  const millis = ms === undefined ? NaN : Number(ms.trim());
  if (Number.isFinite(millis) && millis >= 0) return Math.ceil(millis);
  if (after === undefined || after.trim() === "") return undefined;
  const seconds = Number(after.trim());
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.ceil(seconds * 1000) : undefined;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** `error` saying how many times keel tried. */
function triedTimes(error: ModelError, times: number): ModelError {
  return new ModelError(`${error.message} (keel tried ${times} times)`, error.transient, { cause: error.cause });
}

/** Waits `ms`; rejects with a "cancelled" ModelError at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const cancelled = () => new ModelError("The model call was cancelled.");
    if (signal?.aborted) return reject(cancelled());
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelled());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
