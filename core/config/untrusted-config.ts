import { isKnownKey, isKnownTopLevelKey } from "./config-keys.js";
import { isPlainObject } from "./plain-object.js";

/**
 * Which of keel's config keys an untrusted workspace may set: only keys that restrict or tune,
 * never keys that widen permissions, choose where data is sent, or run anything. A whitelist over
 * keel's known keys, so a key added to keel later is ignored in untrusted workspaces until it is
 * listed here on purpose. `true`: the whole value is kept; an object: only the listed sub-keys.
 */
const RESTRICT_ONLY: Record<string, true | Record<string, true>> = {
  $schema: true,
  permissions: { deny: true, ask: true },
  model: { name: true, contextWindow: true, maxOutputTokens: true, timeoutMs: true, streamIdleTimeoutMs: true, maxRetries: true, stream: true },
  output: true,
  mcp: { lazy: true, startupTimeoutMs: true, toolTimeoutMs: true, elicitation: true },
  agent: true,
  // Levels merge to the strictest sandbox, so a workspace can tighten it but never loosen it;
  // `credentials: "visible"` and `unixSockets: true` loosen it, and are dropped below (a workspace's
  // `workspaceCommands: false` is dropped by mergeLayers, trusted or not).
  sandbox: { mode: true, network: true, denyRead: true, credentials: true, workspaceCommands: true, unixSockets: true },
};

/** An untrusted layer reduced to what it may set, and the dotted keys that were dropped. */
export interface RestrictedLayer {
  value: Record<string, unknown>;
  ignored: string[];
}

/**
 * Keeps only the restrict-only keys of an untrusted workspace layer. A string `model` (a model
 * name) is kept as `{name}`, so it cannot replace another level's `model` object (endpoint, key
 * variable); a `scripted:FILE` model name is dropped like an endpoint, and `mcp.elicitation: "ask"` like a widening key. Every other known keel key
 * or sub-key that is not restrict-only is dropped (and listed in `ignored`). Keys keel does not know are kept: nothing in keel reads them (the
 * unknown-key check warns about them).
 */
export function restrictUntrusted(value: Record<string, unknown>): RestrictedLayer {
  const out: Record<string, unknown> = {};
  const ignored: string[] = [];
  for (const [key, raw] of Object.entries(value)) {
    let v = raw;
    // Own keys only: `constructor` or `__proto__` is no key a workspace may set.
    const allowed = Object.hasOwn(RESTRICT_ONLY, key) ? RESTRICT_ONLY[key] : undefined;
    // `"model": "NAME"` names a model only: as an object it merges into yours instead of replacing your endpoint and key variable.
    if (key === "model" && typeof v === "string") {
      if (isScripted(v)) ignored.push("model.name");
      else out[key] = { name: v };
      continue;
    }
    // A scripted model is a model the repository writes: its turns would be the tool calls (what `--yes` approves).
    if (key === "model" && isPlainObject(v) && isScripted(v.name)) {
      v = { ...v };
      delete (v as Record<string, unknown>).name;
      ignored.push("model.name");
    }
    if (!allowed) {
      if (isKnownTopLevelKey(key)) ignored.push(key);
      else out[key] = v;
      continue;
    }
    if (allowed === true || !isPlainObject(v)) {
      out[key] = v;
      continue;
    }
    const kept: Record<string, unknown> = {};
    for (const [sub, sv] of Object.entries(v)) {
      // Servers' questions: a workspace may make keel decline or cancel them, not ask you where you chose not to be asked.
      if (key === "mcp" && sub === "elicitation" && sv === "ask") ignored.push("mcp.elicitation");
      // Showing your credential stores to sandboxed commands is yours to choose, not the repository's.
      else if (key === "sandbox" && sub === "credentials" && sv === "visible") ignored.push("sandbox.credentials");
      // So is letting sandboxed commands reach the X server and D-Bus buses through abstract Unix sockets.
      else if (key === "sandbox" && sub === "unixSockets" && sv === true) ignored.push("sandbox.unixSockets");
      else if (Object.hasOwn(allowed, sub)) kept[sub] = sv;
      else if (isKnownKey(key, sub)) ignored.push(`${key}.${sub}`);
    }
    // Nothing left of it: dropped whole (a `sandbox` object without a mode would turn the sandbox on).
    if (Object.keys(kept).length || !Object.keys(v).length) out[key] = kept;
  }
  return { value: out, ignored };
}

/** True for a `scripted:FILE` model name (a script in the repository standing in for the model). */
function isScripted(name: unknown): boolean {
  return typeof name === "string" && name.trim().startsWith("scripted:");
}

/** keel's default `agent.maxSteps`: model calls per user turn. */
export const DEFAULT_MAX_STEPS = 25;

/** The `agent` limits an untrusted workspace may lower but not raise, and what each is before any config sets it. */
const LIMITS: readonly { path: readonly string[]; unset: number }[] = [
  { path: ["maxSteps"], unset: DEFAULT_MAX_STEPS },
  { path: ["budgets", "maxTokens"], unset: Infinity },
  { path: ["budgets", "maxToolCalls"], unset: Infinity },
  { path: ["budgets", "maxModelCalls"], unset: Infinity },
];

/**
 * Caps an untrusted workspace layer's `agent.maxSteps` and `agent.budgets.*` at what the levels before
 * it set (`before`: your config merged so far; keel's default of 25 steps), so a repository may lower
 * the limits on a run, never raise the ones you chose. Returns the layer's `agent` value with each
 * limit capped, and each capped limit. Values that are not numbers are left for the schema check.
 */
export function capUntrustedLimits(
  agent: unknown,
  before: Record<string, unknown>,
): { agent: unknown; capped: { key: string; wanted: number; limit: number }[] } {
  if (!isPlainObject(agent)) return { agent, capped: [] };
  const out = structuredClone(agent);
  const capped: { key: string; wanted: number; limit: number }[] = [];
  for (const { path, unset } of LIMITS) {
    const holder = path.slice(0, -1).reduce<unknown>((o, k) => (isPlainObject(o) ? o[k] : undefined), out);
    const key = path[path.length - 1]!;
    if (!isPlainObject(holder) || typeof holder[key] !== "number") continue;
    const prior = path.reduce<unknown>((o, k) => (isPlainObject(o) ? o[k] : undefined), before.agent);
    const limit = typeof prior === "number" ? prior : unset;
    if (holder[key] > limit) {
      capped.push({ key: `agent.${path.join(".")}`, wanted: holder[key], limit });
      holder[key] = limit;
    }
  }
  return { agent: out, capped };
}
