import { ModelError } from "./model-error.js";
import type { ModelCallOptions, ModelResponse } from "./model-types.js";

/** Most retries of one model call `model.maxRetries` may ask for (a larger value is capped here). */
export const MAX_MODEL_RETRIES = 10;
/** Longest wait a server's `Retry-After` may ask for before keel retries; asked to wait longer, keel does not retry. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Longest keel waits, in all, for a server that answers it is still loading the model (llama.cpp: 503 `Loading model`). */
export const MAX_LOADING_WAIT_MS = 300_000;

/** A retry of a model call, as the caller hears of it before keel waits. */
export interface ModelRetry {
  /** 1 for the first retry. */
  attempt: number;
  maxRetries: number;
  /** How long keel waits before it (the server's `Retry-After`, else backoff). */
  delayMs: number;
  /** Why the attempt before it failed. */
  message: string;
  /**
   * Set when the server said it is still loading the model (llama.cpp's 503 `Loading model`): how long keel has waited
   * for it so far, in ms (before this wait). Such retries do not count against `maxRetries`; they end after MAX_LOADING_WAIT_MS.
   */
  loadingWaitedMs?: number;
}

/**
 * Runs `attempt` and, when it fails with a transient ModelError (connection error, timeout, 408/409/429/5xx,
 * a stalled or cut-off stream) before any text reached `options.onText`, runs it again, at most `maxRetries`
 * times: after the server's `Retry-After`/`retry-after-ms` (at most MAX_RETRY_AFTER_MS; asked for longer,
 * no retry), else after backoff (0.5 s doubling to 8 s, with jitter). Never after text was shown (the user
 * would see it twice), nor a 429 that says the quota is used up, nor a response with `x-should-retry: false`.
 * Each retry is announced to `options.onRetry` first; the wait ends at once, as "cancelled", when
 * `options.signal` aborts. The error that ends it says how many times keel tried. A server still loading the model
 * (`loadingModel`) is asked again after 1 s, doubling to 8 s, for up to MAX_LOADING_WAIT_MS in all, apart from
 * `maxRetries` (with `maxRetries` 0, not at all); each of those retries is announced with `loadingWaitedMs`.
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
  // Waits for a server loading its model are counted apart: by time, not against maxRetries.
  let loadingWaits = 0;
  let loadingWaitedMs = 0;
  for (let retries = 0; ;) {
    try {
      return await attempt(watched);
    } catch (error) {
      const retryable = error instanceof ModelError && !shown && !options.signal?.aborted && maxRetries > 0;
      if (retryable && loadingModel(error) && loadingWaitedMs < MAX_LOADING_WAIT_MS) {
        // 1 s doubling to 8 s: a small model is in at once, a large one may take minutes.
        const delayMs = Math.min(1000 * 2 ** Math.min(loadingWaits, 3), MAX_LOADING_WAIT_MS - loadingWaitedMs);
        options.onRetry?.({ attempt: ++loadingWaits, maxRetries, delayMs, message: error.message, loadingWaitedMs });
        await pause(delayMs, options.signal);
        loadingWaitedMs += delayMs;
        continue;
      }
      const delayMs = retryable && retries < maxRetries ? retryDelay(error, retries) : undefined;
      const tries = retries + loadingWaits + 1;
      if (delayMs === undefined) throw tries > 1 && error instanceof ModelError ? triedTimes(error, tries, loadingWaitedMs) : error;
      options.onRetry?.({ attempt: ++retries, maxRetries, delayMs, message: (error as ModelError).message });
      await pause(delayMs, options.signal);
    }
  }
}

/**
 * True for a server's answer that it is still loading the model: 503 with the message `Loading model` (llama.cpp's
 * server answers every request so, `{"error": {"code": 503, "message": "Loading model", "type": "unavailable_error"}}`,
 * until the model is in memory, which can take a minute or more).
 */
export function loadingModel(error: ModelError): boolean {
  const cause = error.cause as { status?: unknown; error?: { message?: unknown } } | undefined;
  return cause?.status === 503 && typeof cause.error?.message === "string" && /^\s*loading model\b/i.test(cause.error.message);
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

/** `error` saying how many times keel tried (and how long it waited for the model to load, when it did). */
function triedTimes(error: ModelError, times: number, loadingWaitedMs: number): ModelError {
  const waited = loadingWaitedMs > 0 ? `, ${Math.round(loadingWaitedMs / 1000)} s of them waiting for the server to load the model` : "";
  const hint =
    loadingModel(error) && loadingWaitedMs >= MAX_LOADING_WAIT_MS
      ? ` The server was still loading the model after ${Math.round(MAX_LOADING_WAIT_MS / 1000)} s: check its log (a model too large for memory loads slowly or not at all), then run again.`
      : "";
  return new ModelError(`${error.message} (keel tried ${times} times${waited})${hint}`, error.transient, { cause: error.cause });
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
