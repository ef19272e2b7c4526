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
  model: { name: true, contextWindow: true, maxOutputTokens: true, timeoutMs: true, maxRetries: true, stream: true },
  output: true,
  mcp: { lazy: true, startupTimeoutMs: true, toolTimeoutMs: true, elicitation: true },
  agent: true,
  // Levels merge to the strictest sandbox, so a workspace can tighten it but never loosen it.
  sandbox: true,
};

/** An untrusted layer reduced to what it may set, and the dotted keys that were dropped. */
export interface RestrictedLayer {
  value: Record<string, unknown>;
  ignored: string[];
}

/**
 * Keeps only the restrict-only keys of an untrusted workspace layer. A string `model` (a model
 * name) is kept; every other known keel key or sub-key that is not restrict-only is dropped (and
 * listed in `ignored`). Keys keel does not know are kept: nothing in keel reads them (the
 * unknown-key check warns about them).
 */
export function restrictUntrusted(value: Record<string, unknown>): RestrictedLayer {
  const out: Record<string, unknown> = {};
  const ignored: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    const allowed = RESTRICT_ONLY[key];
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
      if (allowed[sub]) kept[sub] = sv;
      else if (isKnownKey(key, sub)) ignored.push(`${key}.${sub}`);
    }
    out[key] = kept;
  }
  return { value: out, ignored };
}
