import type { ModelUsage } from "./model-types.js";

/** Most tokens one model call counts for (far above any real call, so sums of many stay exact and finite). */
const MAX_CALL_TOKENS = 1e12;

/**
 * The token usage a server reported, when both counts are numbers keel can count: finite and not
 * negative (rounded up, at most 1e12 each); else undefined, and keel estimates. A hostile or broken
 * endpoint's `prompt_tokens: -1000000000` (or a string, null, an object) would otherwise lower what
 * budgets count — a negative usage must never buy budget.
 */
export function reportedUsage(inputTokens: unknown, outputTokens: unknown): ModelUsage | undefined {
  const input = tokenCount(inputTokens);
  const output = tokenCount(outputTokens);
  return input === undefined || output === undefined ? undefined : { inputTokens: input, outputTokens: output };
}

/** `n` as a token count keel adds up (finite, not negative, whole, capped), else undefined. */
export function tokenCount(n: unknown): number | undefined {
  return typeof n === "number" && Number.isFinite(n) && n >= 0 ? Math.min(Math.ceil(n), MAX_CALL_TOKENS) : undefined;
}
