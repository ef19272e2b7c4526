import { isPlainObject } from "../config/plain-object.js";

/** The sandbox modes: unsandboxed, or under bubblewrap with the workspace writable or nothing writable. */
export const SANDBOX_MODES = ["off", "workspace-write", "read-only"] as const;

/** How shell commands run (one of SANDBOX_MODES). */
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** Whether a sandboxed process sees your credential stores (`~/.ssh`, `~/.aws`, …; see hidden-paths.ts). */
export type CredentialsVisibility = "hidden" | "visible";

/** A valid `sandbox` value in keel config: a mode, or an object (the config schema in config-schema.ts has the same shape). */
export type SandboxValue =
  | SandboxMode
  | { mode?: SandboxMode; network?: boolean; denyRead?: string[]; credentials?: CredentialsVisibility; workspaceCommands?: boolean; unixSockets?: boolean };

/** The sandbox settings in force. */
export interface SandboxSettings {
  mode: SandboxMode;
  /** False: the sandboxed process gets no network (its own empty network namespace). */
  network: boolean;
  /** Paths a sandboxed process must not read, as configured (`~/…`, absolute, or relative to the workspace), every level's together. */
  denyRead: readonly string[];
  /** `hidden` (the default): your credential stores read as empty inside the sandbox. */
  credentials: CredentialsVisibility;
  /**
   * True: hook commands and stdio MCP servers the workspace brings (not yours from `$KEEL_HOME`) run
   * sandboxed too, under these settings, or `workspace-write` when the mode is `off`.
   */
  workspaceCommands: boolean;
  /**
   * True: a sandboxed process may create Unix sockets while it shares your network. False (the default): with the
   * network on, a seccomp filter refuses them (see seccomp-filter.ts), since the abstract ones of your session (the X
   * server, D-Bus) have no file to hide. Without network (`network: false`) they follow file visibility either way.
   */
  unixSockets: boolean;
}

/** No sandbox: the default for now (opt-in). */
export const SANDBOX_OFF: SandboxSettings = Object.freeze({
  mode: "off",
  network: true,
  denyRead: Object.freeze([]),
  credentials: "hidden",
  workspaceCommands: false,
  unixSockets: false,
});

/**
 * True when sandboxed processes are kept off Unix sockets by the seccomp filter: unless `unixSockets` allows
 * them, network on or off. With the network on they would share your session's abstract sockets (the X
 * server, D-Bus); on or off, the socket files of your session's runtime folder that keel does not hide
 * (the accessibility bus, PipeWire, Wayland).
 */
export function unixSocketsBlocked(settings: SandboxSettings): boolean {
  return !settings.unixSockets;
}

/** What a valid `sandbox` value looks like, for error messages. */
export const SANDBOX_SHAPE =
  'must be "off", "workspace-write", "read-only" or an object with "mode" (one of those), "network" (true or false), "denyRead" (a list of paths: no wildcards), "credentials" ("hidden" or "visible"), "workspaceCommands" (true or false) and "unixSockets" (true or false)';

/** Characters of a pattern: `denyRead` takes paths only, since the sandbox must name each path it hides. */
export const PATTERN_CHARS = /[*?[\]{}]/;

const RANK = { off: 0, "workspace-write": 1, "read-only": 2 } as const;

function isMode(value: unknown): value is SandboxMode {
  return typeof value === "string" && (SANDBOX_MODES as readonly string[]).includes(value);
}

/**
 * True when `value` is a valid `sandbox` value: a mode, or an object with only `mode` (a mode),
 * `network`, `workspaceCommands` and `unixSockets` (booleans), `denyRead` (paths) and `credentials`. Checked without zod, so merging config layers loads no schema library;
 * the config schema (which names the fault) accepts exactly these values.
 */
export function isSandboxValue(value: unknown): value is SandboxValue {
  if (isMode(value)) return true;
  if (!isPlainObject(value)) return false;
  return Object.entries(value).every(
    ([key, v]) =>
      v === undefined ||
      (key === "mode" && isMode(v)) ||
      ((key === "network" || key === "workspaceCommands" || key === "unixSockets") && typeof v === "boolean") ||
      (key === "denyRead" && Array.isArray(v) && v.every((p) => typeof p === "string" && p.trim() !== "" && !PATTERN_CHARS.test(p))) ||
      (key === "credentials" && (v === "hidden" || v === "visible")),
  );
}

/** Normalizes one config value (invalid values are left to the schema check and count as off here). */
export function sandboxSettings(value: unknown): SandboxSettings {
  if (!isSandboxValue(value)) return SANDBOX_OFF;
  if (typeof value === "string") return { ...SANDBOX_OFF, mode: value, workspaceCommands: value !== "off" };
  // An object turns the sandbox on unless it sets a mode, or says nothing but `workspaceCommands`
  // (which sandboxes what the workspace brings, not the bash tool) and `unixSockets` (how a sandbox
  // another level turns on treats Unix sockets).
  const said = Object.entries(value).filter(([, v]) => v !== undefined);
  const onlyScope = said.length > 0 && said.every(([key]) => key === "workspaceCommands" || key === "unixSockets");
  const mode = value.mode ?? (onlyScope ? "off" : "workspace-write");
  return {
    mode,
    network: value.network ?? true,
    denyRead: value.denyRead ?? [],
    credentials: value.credentials ?? "hidden",
    workspaceCommands: value.workspaceCommands ?? mode !== "off",
    unixSockets: value.unixSockets ?? false,
  };
}

/** What one level's `sandbox` value says about credentials: undefined when it does not say. */
function credentialsOf(value: unknown): CredentialsVisibility | undefined {
  return isSandboxValue(value) && typeof value === "object" ? value.credentials : undefined;
}

/**
 * The strictest of several levels' `sandbox` values: a sandbox may be tightened by any level,
 * loosened by none. `denyRead` paths accumulate; credentials are visible only when a level says
 * `visible` and none says `hidden` (an untrusted workspace's `visible` never gets here: it widens).
 * No network cannot be enforced without a sandbox, so `network: false` with mode `off` becomes
 * `workspace-write` (failing closed). `workspaceCommands` is true when a level says `true`, false
 * when none does and one says `false` (only yours may: mergeLayers drops a workspace's `false`),
 * else on exactly when the merged mode is not `off`. Unix sockets are allowed (`unixSockets`) only when a level
 * says `true` and none says `false` (an untrusted workspace's `true` never gets here: it widens).
 */
export function strictest(values: unknown[]): SandboxSettings {
  let mode: SandboxMode = "off";
  let network = true;
  const denyRead = new Set<string>();
  for (const value of values) {
    const s = sandboxSettings(value);
    if (RANK[s.mode] > RANK[mode]) mode = s.mode;
    network &&= s.network;
    for (const p of s.denyRead) denyRead.add(p);
  }
  const said = values.map(credentialsOf);
  const credentials = said.includes("visible") && !said.includes("hidden") ? "visible" : "hidden";
  if (!network && mode === "off") mode = "workspace-write";
  const wc = values.map(workspaceCommandsOf);
  const workspaceCommands = wc.includes(true) || (!wc.includes(false) && mode !== "off");
  const us = values.map(unixSocketsOf);
  const unixSockets = us.includes(true) && !us.includes(false);
  return { mode, network, denyRead: [...denyRead], credentials, workspaceCommands, unixSockets };
}

/** What one level's `sandbox` value says about `unixSockets`: undefined when it does not say. */
function unixSocketsOf(value: unknown): boolean | undefined {
  return isSandboxValue(value) && typeof value === "object" ? value.unixSockets : undefined;
}

/** What one level's `sandbox` value says about `workspaceCommands`: undefined when it does not say. */
function workspaceCommandsOf(value: unknown): boolean | undefined {
  return isSandboxValue(value) && typeof value === "object" ? value.workspaceCommands : undefined;
}
