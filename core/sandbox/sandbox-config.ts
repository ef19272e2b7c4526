import { z } from "zod";

/** How shell commands run: unsandboxed, or under bubblewrap with the workspace writable or nothing writable. */
export const SandboxMode = z.enum(["off", "workspace-write", "read-only"]);

/** `sandbox` in keel config: a mode, or `{mode, network}`. */
export const SandboxConfig = z.union([SandboxMode, z.object({ mode: SandboxMode.optional(), network: z.boolean().optional() }).strict()]);

/** The sandbox settings in force. */
export interface SandboxSettings {
  mode: z.infer<typeof SandboxMode>;
  /** False: the sandboxed process gets no network (its own empty network namespace). */
  network: boolean;
}

/** No sandbox: the default for now (opt-in). */
export const SANDBOX_OFF: SandboxSettings = Object.freeze({ mode: "off", network: true });

const RANK = { off: 0, "workspace-write": 1, "read-only": 2 } as const;

/** Normalizes one config value (invalid values are left to the schema check and count as off here). */
export function sandboxSettings(value: unknown): SandboxSettings {
  const parsed = SandboxConfig.safeParse(value);
  if (!parsed.success) return SANDBOX_OFF;
  if (typeof parsed.data === "string") return { mode: parsed.data, network: true };
  return { mode: parsed.data.mode ?? "workspace-write", network: parsed.data.network ?? true };
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
