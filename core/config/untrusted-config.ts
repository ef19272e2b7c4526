import { isPlainObject } from "./plain-object.js";

/**
 * What an untrusted workspace's config may set: only keys that restrict or tune, never keys that
 * widen permissions, choose where data is sent, or run anything. A whitelist, so a key added later
 * is ignored in untrusted workspaces until it is listed here on purpose.
 * `true`: the whole value is kept; an object: only the listed sub-keys are kept.
 */
const RESTRICT_ONLY: Record<string, true | Record<string, true>> = {
  $schema: true,
  permissions: { deny: true, ask: true },
  model: { name: true, contextWindow: true, maxOutputTokens: true, timeoutMs: true, maxRetries: true, stream: true },
  output: true,
  mcp: { lazy: true, startupTimeoutMs: true, toolTimeoutMs: true, elicitation: true },
  agent: true,
  // Levels merge to the strictest sandbox, so a workspace can tighten it but never loosen it.
  sandbox: true,
};

/** Keys an untrusted workspace wrote that widen what keel does; reported as ignored (unknown keys are reported elsewhere). */
const WIDENING: Record<string, readonly string[]> = {
  permissions: ["allow"],
  model: ["baseUrl", "apiKeyEnv", "headers", "defaultHeaders", "apiKey", "organization", "project"],
};

/** An untrusted layer reduced to what it may set, and the dotted keys that were dropped because they would widen. */
export interface RestrictedLayer {
  value: Record<string, unknown>;
  ignored: string[];
}

/**
 * Keeps only the restrict-only keys of an untrusted workspace layer. A string `model` (a model
 * name) is kept; keys that widen (allow rules, model endpoint, key variable, headers) are dropped
 * and listed in `ignored`; unknown keys are dropped silently (the unknown-key check reports them).
 */
export function restrictUntrusted(value: Record<string, unknown>): RestrictedLayer {
  const out: Record<string, unknown> = {};
  const ignored: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    const allowed = RESTRICT_ONLY[key];
    if (!allowed) continue;
    if (allowed === true || !isPlainObject(v)) {
      out[key] = v;
      continue;
    }
    const kept: Record<string, unknown> = {};
    for (const [sub, sv] of Object.entries(v)) {
      if (allowed[sub]) kept[sub] = sv;
      else if (WIDENING[key]?.includes(sub)) ignored.push(`${key}.${sub}`);
    }
    out[key] = kept;
  }
  return { value: out, ignored };
}
