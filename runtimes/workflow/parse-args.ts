import { UsageError } from "../../core/index.js";

/**
 * Turns `--arg key=value` pairs into arguments. A value stays a string when the workflow's
 * `parameters` declare that key as a string (or declare nothing about it); otherwise JSON text is
 * parsed (`count=3` → 3, `flags=["a"]` → list), falling back to the string. Throws UsageError for a pair without `=`.
 */
export function parseArgPairs(pairs: string[], parameters?: Record<string, unknown>): Record<string, unknown> {
  const props = (parameters?.properties ?? {}) as Record<string, { type?: unknown } | undefined>;
  const out: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new UsageError(`--arg expects key=value (got ${JSON.stringify(pair)}). Example: --arg path=src/`);
    const key = pair.slice(0, eq).trim();
    const raw = pair.slice(eq + 1);
    const declared = props[key]?.type;
    const types = Array.isArray(declared) ? declared : declared === undefined ? [] : [declared];
    out[key] = types.length === 0 || types.includes("string") ? raw : parseJson(raw);
  }
  return out;
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
