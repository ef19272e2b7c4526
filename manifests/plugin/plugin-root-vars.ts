import { setOwn } from "./set-own.js";

/** Replaces `${CLAUDE_PLUGIN_ROOT}` and `${PLUGIN_ROOT}` in every string of a JSON value (deep copy). Other text is untouched. */
export function expandPluginRoot(value: unknown, root: string): unknown {
  if (typeof value === "string") return value.replace(/\$\{(?:CLAUDE_PLUGIN_ROOT|PLUGIN_ROOT)\}/g, () => root);
  if (Array.isArray(value)) return value.map((v) => expandPluginRoot(v, root));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) setOwn(out, k, expandPluginRoot(v, root));
    return out;
  }
  return value;
}
