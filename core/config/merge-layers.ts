import { relative } from "node:path";
import type { Diagnostic } from "../diagnostics.js";
import type { TrustItem } from "../trust.js";
import { translatePermissionRules } from "./claude-rules.js";
import { claudeDenyRead } from "./claude-sandbox.js";
import { unknownKeys } from "./config-keys.js";
import { type ConfigLayer, levelOf, type TrustLevel } from "./config-sources.js";
import { deepMerge } from "./deep-merge.js";
import { isPlainObject } from "./plain-object.js";
import { isSandboxValue, SANDBOX_SHAPE, strictest } from "../sandbox/sandbox-config.js";
import { capUntrustedLimits, restrictUntrusted } from "./untrusted-config.js";
import { MAX_TIMER_MS } from "../tool-call.js";
import { listedSettings, unreadClaudeSettings } from "./claude-settings-unread.js";
import { orTrustOnce, TRUST_ONCE } from "../trust-hint.js";

/** The three permission lists, in precedence order. */
const LISTS = ["deny", "ask", "allow"] as const;

/** The merged config of every layer, as the host uses it. */
export interface MergedLayers {
  value: Record<string, unknown>;
  /** For each allow rule, the levels that contributed it (an alias needs a rule from its plugin's own level). A Map: a rule is any text (`toString`). */
  allowLevels: Map<string, TrustLevel[]>;
  /** What was ignored or translated, and unknown keys: each naming file and key. */
  diagnostics: Diagnostic[];
  /** Layers whose `permissions` value has the wrong shape (their rules were not applied). */
  invalid: { file: string; source: ConfigLayer["source"]; path: string; message: string }[];
  /** Of `diagnostics`, those every command says as it starts: a trusted workspace's widening settings held back since they changed. */
  notices?: Diagnostic[];
}

/** Keys whose unknown sub-keys keel reports: its own files. Claude's and legacy files are shared with other tools. */
const KEEL_FORMAT: ReadonlySet<ConfigLayer["source"]> = new Set(["user", "project", "local"]);

/** How to have an untrusted workspace's widening settings used (`marked`: inside a process keel started for a tool, see orTrustOnce). */
export function howToTrust(marked = false): string {
  return `Trust this workspace with \`keel trust\`${orTrustOnce(marked, TRUST_ONCE.flagOrEnv)} to use them.`;
}

/**
 * Merges parsed layers in order. Objects merge deeply and later scalars win, except permissions:
 * `deny`, `ask` and `allow` rules accumulate across every layer (a later `deny: []` never removes
 * an earlier deny). Claude Code settings contribute only their permission rules (translated to
 * keel rules); rules in every layer may use Claude's syntax. A workspace layer of an untrusted
 * workspace may only restrict: its allow rules, model endpoint, key variable and headers are
 * dropped with a warning. The sandbox is the strictest any layer asks for. Never throws.
 */
export function mergeLayers(layers: ConfigLayer[], trusted: boolean, held?: "changed" | "unpinned", marked = false): MergedLayers {
  const diagnostics: Diagnostic[] = [];
  const notices: Diagnostic[] = [];
  const invalid: MergedLayers["invalid"] = [];
  // Sets keep insertion order and dedupe in constant time (a committed file may hold many rules).
  const rules: Record<(typeof LISTS)[number], Set<string>> = { deny: new Set(), ask: new Set(), allow: new Set() };
  const allowLevels = new Map<string, TrustLevel[]>();
  let merged: Record<string, unknown> = {};
  const sandboxes: unknown[] = [];
  for (const layer of layers) {
    if (!layer.value) continue;
    const level = levelOf(layer.source);
    if (KEEL_FORMAT.has(layer.source))
      for (const u of unknownKeys(layer.value))
        diagnostics.push({
          severity: "warning",
          source: "config",
          file: layer.file,
          path: u.key,
          message: `Unknown config key "${u.key}"${u.suggestion ? ` — did you mean "${u.suggestion}"?` : ""}; it has no effect.${u.suggestion ? ` Rename it to "${u.suggestion}".` : ""}`,
        });
    diagnostics.push(...cappedTimeouts(layer));
    const { value, ignored } = contribution(layer, trusted);
    if (layer.source === "claude") {
      const unread = unreadClaudeSettings(layer.value);
      if (unread.length)
        diagnostics.push({
          severity: "info",
          source: "config",
          file: layer.file,
          path: listedSettings(unread),
          message: `keel does not read these Claude Code settings, so they have no effect here: ${listedSettings(unread)}. keel reads permissions.allow/ask/deny, hooks, sandbox.filesystem.denyRead and disabledMcpjsonServers from this file; set the rest in keel's config (see keel config list) where keel has a counterpart.`,
        });
    }
    if (layer.source === "claude")
      for (const skip of claudeDenyRead(layer.value, layer.file, layer.scope).skipped)
        diagnostics.push({
          severity: "warning",
          source: "config",
          file: layer.file,
          path: `sandbox.filesystem.denyRead[${skip.index}]`,
          message: `Not hidden by keel's sandbox: ${skip.reason}.`,
        });
    if (ignored.length) {
      const d: Diagnostic = {
        severity: "warning",
        source: "config",
        file: layer.file,
        path: ignored.join(", "),
        message: held
          ? `${held === "changed" ? "This workspace's settings that widen changed since `keel trust`" : "This workspace was trusted before `keel trust` recorded what it approves"}, so its config only restricts: ${ignored.map(describeIgnored(layer.value)).join(", ")} ignored. Review them, then run \`keel trust\`${orTrustOnce(marked, TRUST_ONCE.flag)} to use them.`
          : `This workspace is not trusted, so its config may only restrict: ${ignored.map(describeIgnored(layer.value)).join(", ")} ignored. ${howToTrust(marked)}`,
      };
      diagnostics.push(d);
      // You trusted this workspace: that its config is held back is said as every command starts (an allow rule you rely on does not apply).
      if (held) notices.push(d);
    }
    const { permissions, ...rest } = value;
    // Only you may let what the workspace brings run unsandboxed: a workspace's opt-out is ignored, trusted or not.
    if (level === "workspace" && isPlainObject(rest.sandbox) && rest.sandbox.workspaceCommands === false) {
      const { workspaceCommands: _dropped, ...others } = rest.sandbox;
      if (Object.keys(others).length) rest.sandbox = others;
      else delete rest.sandbox;
      diagnostics.push({
        severity: "warning",
        source: "config",
        file: layer.file,
        path: "sandbox.workspaceCommands",
        message:
          'Ignored: only your own config ($KEEL_HOME/config.json) may set "sandbox.workspaceCommands": false (run the hooks and MCP servers a workspace brings outside the sandbox). Remove it from this file, or set it in your config.',
      });
    }
    // An untrusted repository may lower the agent's step limit and budgets, never raise yours (or keel's default).
    if (level === "workspace" && !trusted && rest.agent !== undefined) {
      const { agent, capped } = capUntrustedLimits(rest.agent, merged);
      rest.agent = agent;
      for (const c of capped)
        diagnostics.push({
          severity: "warning",
          source: "config",
          file: layer.file,
          path: c.key,
          message: `This workspace is not trusted, so its config may lower keel's limits, not raise them: ${c.key} ${c.wanted} was capped at ${c.limit}, the limit set before it (your config, or keel's default). ${howToTrust(marked)}`,
        });
    }
    const shapeError = permissionsShapeError(permissions);
    if (shapeError) {
      invalid.push({ file: layer.file, source: layer.source, ...shapeError });
      diagnostics.push({
        severity: "error",
        source: "config",
        file: layer.file,
        path: shapeError.path,
        message: `Invalid config field "${shapeError.path}": ${shapeError.message}. The file's permission rules were not applied.`,
      });
    }
    for (const list of shapeError ? [] : LISTS) {
      const raw = (permissions as Record<string, unknown> | undefined)?.[list];
      if (!Array.isArray(raw)) continue;
      const translated = translatePermissionRules(raw, list, layer.source === "claude" ? { dialect: "claude", scope: layer.scope } : { dialect: "mixed" });
      for (const w of translated.warnings)
        diagnostics.push({ severity: "warning", source: "config", file: layer.file, path: `permissions.${list}[${w.index}]`, message: w.message });
      for (const rule of translated.rules) {
        rules[list].add(rule);
        if (list !== "allow") continue;
        const levels = allowLevels.get(rule) ?? [];
        if (!levels.includes(level)) allowLevels.set(rule, [...levels, level]);
      }
    }
    if (rest.sandbox !== undefined && isSandboxValue(rest.sandbox)) sandboxes.push(rest.sandbox);
    else if (rest.sandbox !== undefined) {
      // Named here, per file: a later level's valid value must not hide it (its restrictions would be lost).
      const problem = { path: "sandbox", message: SANDBOX_SHAPE };
      invalid.push({ file: layer.file, source: layer.source, ...problem });
      diagnostics.push({
        severity: "error",
        source: "config",
        file: layer.file,
        path: "sandbox",
        message: `Invalid config field "sandbox": ${SANDBOX_SHAPE}. It was not applied.`,
      });
    }
    merged = deepMerge(merged, rest);
  }
  // Every level may tighten the sandbox; none may loosen it. Invalid values stay for the schema check to name.
  if (sandboxes.length) merged.sandbox = strictest(sandboxes);
  else delete merged.sandbox;
  const present = (["allow", "ask", "deny"] as const).filter((l) => rules[l].size);
  if (present.length) merged.permissions = Object.fromEntries(present.map((l) => [l, [...rules[l]]]));
  return { value: merged, allowLevels, diagnostics, invalid, notices };
}

/** Why a layer's `permissions` value has the wrong shape (an object of string lists), or undefined when it is fine. */
function permissionsShapeError(permissions: unknown): { path: string; message: string } | undefined {
  if (permissions === undefined) return undefined;
  if (!isPlainObject(permissions)) return { path: "permissions", message: "must be an object with allow, ask and deny lists" };
  for (const list of LISTS) {
    const v = permissions[list];
    if (v === undefined) continue;
    if (!Array.isArray(v)) return { path: `permissions.${list}`, message: `must be a list of rules such as ["bash(git status*)"] (got ${typeof v})` };
    const bad = v.findIndex((r) => typeof r !== "string");
    if (bad !== -1) return { path: `permissions.${list}[${bad}]`, message: `a rule must be a string such as "bash(git status*)" (got ${typeof v[bad]})` };
  }
  return undefined;
}

/**
 * What a layer contributes to the merged config: Claude Code settings only their permission rules
 * (untranslated here) and the paths their sandbox hides (`sandbox.filesystem.denyRead`, as keel's
 * `sandbox.denyRead`); a workspace layer of an untrusted workspace only its restrict-only keys
 * (with the keys it dropped). Never throws.
 */
export function contribution(layer: ConfigLayer, trusted: boolean): { value: Record<string, unknown>; ignored: string[] } {
  const value = layer.source === "claude" ? claudeContribution(layer) : (layer.value ?? {});
  return levelOf(layer.source) === "workspace" && !trusted ? restrictUntrusted(value) : { value, ignored: [] };
}

/**
 * What the workspace's config sets that widens (every key `restrictUntrusted` would drop, and a
 * string `model`, with its value, per file), as the TrustItem `keel trust` approves; undefined when it sets nothing that
 * widens. Files are named relative to `root`.
 */
export function wideningSettings(layers: ConfigLayer[], root: string): TrustItem | undefined {
  const parts: [string, [string, unknown][]][] = [];
  for (const layer of layers) {
    if (!layer.value || levelOf(layer.source) !== "workspace") continue;
    const source = contribution(layer, true).value;
    const { ignored } = contribution(layer, false);
    const entries: [string, unknown][] = ignored.map((key) => [key, valueAt(source, key)]);
    // Trusted, a string `model` replaces your whole model (endpoint, key variable); restricted, it only names it.
    if (typeof source.model === "string" && !ignored.includes("model.name")) entries.push(["model", source.model]);
    if (entries.length) parts.push([relative(root, layer.file), entries]);
  }
  if (!parts.length) return undefined;
  const keys = [...new Set(parts.flatMap(([, entries]) => entries.map(([key]) => key)))];
  return { kind: "config", name: `settings that widen (${keys.join(", ")} in ${parts.map(([file]) => file).join(", ")})`, config: parts };
}

/** The value at a dotted key of a config layer (`model.name` of a string model is the string). */
function valueAt(value: Record<string, unknown>, dotted: string): unknown {
  const [key, sub] = dotted.split(".", 2) as [string, string | undefined];
  const v = value[key];
  if (sub === undefined || !isPlainObject(v)) return v;
  return v[sub];
}

/**
 * Claude Code settings' permission rules, and their sandbox's hidden paths as keel's `sandbox.denyRead`
 * with mode `off`: the paths join every level's and apply when keel's sandbox is on; they never turn it
 * on (an object without a mode would mean `workspace-write`, and every `bash` call would be refused
 * where bubblewrap cannot run).
 */
function claudeContribution(layer: ConfigLayer): Record<string, unknown> {
  const settings = layer.value ?? {};
  const { paths } = claudeDenyRead(settings, layer.file, layer.scope);
  return { ...pick(settings, "permissions"), ...(paths.length ? { sandbox: { mode: "off", denyRead: paths } } : {}) };
}

function pick(value: Record<string, unknown>, key: string): Record<string, unknown> {
  return value[key] === undefined ? {} : { [key]: value[key] };
}

/** `permissions.allow (2 rules)` / `model.baseUrl` for the ignored-keys warning. */
function describeIgnored(value: Record<string, unknown>): (key: string) => string {
  return (key) => {
    const [section, sub] = key.split(".") as [string, string];
    const v = isPlainObject(value[section]) ? (value[section] as Record<string, unknown>)[sub] : undefined;
    return Array.isArray(v) ? `${key} (${v.length} rule${v.length === 1 ? "" : "s"})` : key;
  };
}

/** Timeouts keel config sets in milliseconds, each passed to a timer (the longest a timer waits is MAX_TIMER_MS). */
const TIMEOUT_FIELDS = [
  ["model", "timeoutMs"],
  ["model", "streamIdleTimeoutMs"],
  ["mcp", "startupTimeoutMs"],
  ["mcp", "toolTimeoutMs"],
] as const;

/** A warning per timeout the layer sets longer than a timer can wait (Node would fire it after 1 ms; keel caps it), naming the file. */
function cappedTimeouts(layer: ConfigLayer): Diagnostic[] {
  return TIMEOUT_FIELDS.flatMap(([section, field]) => {
    const parent = layer.value?.[section];
    const value = isPlainObject(parent) ? parent[field] : undefined;
    if (typeof value !== "number" || value <= MAX_TIMER_MS) return [];
    const path = `${section}.${field}`;
    return [
      {
        severity: "warning" as const,
        source: "config",
        file: layer.file,
        path,
        message: `${path} is ${value} ms, more than the longest timeout keel can set (${MAX_TIMER_MS} ms, about 24.8 days); it is capped there. Set at most ${MAX_TIMER_MS}.`,
      },
    ];
  });
}
