import { isPlainObject } from "../config/plain-object.js";

/** The sandbox modes: unsandboxed, or under bubblewrap with the workspace writable or nothing writable. */
export const SANDBOX_MODES = ["off", "workspace-write", "read-only"] as const;

/** How shell commands run (one of SANDBOX_MODES). */
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** A valid `sandbox` value in keel config: a mode, or `{mode, network}` (the config schema in config-schema.ts has the same shape). */
export type SandboxValue = SandboxMode | { mode?: SandboxMode; network?: boolean };

/** The sandbox settings in force. */
export interface SandboxSettings {
  mode: SandboxMode;
  /** False: the sandboxed process gets no network (its own empty network namespace). */
  network: boolean;
}

/** No sandbox: the default for now (opt-in). */
export const SANDBOX_OFF: SandboxSettings = Object.freeze({ mode: "off", network: true });

const RANK = { off: 0, "workspace-write": 1, "read-only": 2 } as const;

function isMode(value: unknown): value is SandboxMode {
  return typeof value === "string" && (SANDBOX_MODES as readonly string[]).includes(value);
}

/**
 * True when `value` is a valid `sandbox` value: a mode, or an object with only `mode` (a mode) and
 * `network` (a boolean). Checked without zod, so merging config layers loads no schema library;
 * the config schema (which names the fault) accepts exactly these values.
 */
export function isSandboxValue(value: unknown): value is SandboxValue {
  if (isMode(value)) return true;
  if (!isPlainObject(value)) return false;
  return Object.entries(value).every(
    ([key, v]) => (key === "mode" && (v === undefined || isMode(v))) || (key === "network" && (v === undefined || typeof v === "boolean")),
  );
}

/** Normalizes one config value (invalid values are left to the schema check and count as off here). */
export function sandboxSettings(value: unknown): SandboxSettings {
  if (!isSandboxValue(value)) return SANDBOX_OFF;
  if (typeof value === "string") return { mode: value, network: true };
  return { mode: value.mode ?? "workspace-write", network: value.network ?? true };
}

/**
 * The strictest of several levels' settings: a sandbox may be tightened by any level, loosened by
 * none. No network cannot be enforced without a sandbox, so `network: false` with mode `off`
 * becomes `workspace-write` (failing closed).
 */
export function strictest(all: SandboxSettings[]): SandboxSettings {
  let out = SANDBOX_OFF;
  for (const s of all) out = { mode: RANK[s.mode] > RANK[out.mode] ? s.mode : out.mode, network: out.network && s.network };
  return !out.network && out.mode === "off" ? { mode: "workspace-write", network: false } : out;
}
