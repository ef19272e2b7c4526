import { didYouMean, fmt, type Host } from "../core/index.js";
import type { LoadedPlugin } from "../manifests/plugin/load-plugins.js";
import { PLUGIN_DIAGNOSTIC_SOURCE } from "../manifests/plugin/load-plugins.js";
import type { PluginRecord, SkippedItem } from "./plugin-record.js";
import { reservedNames, type ReservedNames } from "./reserved-names.js";
import { hookKeys } from "./tool-hook-taps.js";
import { createVirtualTool, RESERVED_VIRTUAL_TOOL_METADATA } from "./virtual-tool.js";

/** A loaded plugin paired with its record. */
export interface PluginEntry {
  plugin: LoadedPlugin;
  record: PluginRecord;
}

/** What a workspace plugin's names are checked against. */
interface NameRules {
  reserved: ReservedNames;
  /** Alias and virtual tool names user-level plugins declare, with the plugin declaring each. */
  userNames: Map<string, LoadedPlugin>;
}

/**
 * Registers every plugin's virtual tools (first pass) then aliases (second pass, so an alias
 * may target a virtual tool); in each pass user-level plugins go before workspace ones, so a
 * user's names always win (also the tools user-level code plugins registered, `userCodeTools`). No plugin may take the name of one of keel's on-demand tools (`skill`,
 * the `mcp_*` helpers, … registered or not); workspace plugins may not take a name a user-level plugin
 * declares nor one in a reserved namespace (`mcp__*`, `mcp_*`, built-in and runtime tool names and families):
 * call this after built-ins and runtimes registered. Otherwise the first name wins. Skips become
 * diagnostics on `host.diagnostics` and entries in the plugin's record. Never throws.
 */
export function registerPluginTools(host: Host, entries: PluginEntry[], userCodeTools: ReadonlyMap<string, LoadedPlugin> = new Map()): void {
  const user = entries.filter((e) => e.plugin.level === "user");
  const ordered = [...user, ...entries.filter((e) => e.plugin.level !== "user")];
  const rules: NameRules = { reserved: reservedNames(host.registry), userNames: new Map() };
  for (const { plugin } of user)
    for (const spec of [...plugin.manifest.virtualTools, ...plugin.manifest.aliases])
      if (!rules.userNames.has(spec.name) && !rules.reserved.keelTool(spec.name)) rules.userNames.set(spec.name, plugin);
  // a user-level code plugin's tools register later (stage 210) but are the user's names all the same
  for (const [name, plugin] of userCodeTools) if (!rules.userNames.has(name) && !rules.reserved.keelTool(name)) rules.userNames.set(name, plugin);
  for (const entry of ordered) registerVirtualTools(host, entry, rules);
  for (const entry of ordered) registerAliases(host, entry, rules);
  for (const entry of entries) warnUnknownTargets(host, entry);
}

/**
 * A block or tool hook naming no tool keel has (`"blocked_tools": ["Shell"]`) does nothing: a warning
 * says so, so a guard that protects nothing does not look like one. `mcp__*` names are not judged
 * (their server may start later), nor `*`.
 */
function warnUnknownTargets(host: Host, { plugin, record }: PluginEntry): void {
  const targets = [
    ...plugin.manifest.blockedTools.map((b) => ({ name: b.name, path: b.path, what: "blocks" })),
    ...plugin.manifest.toolHooks.map((h) => ({ name: h.tool, path: h.path, what: h.blockMessage ? "blocks" : "guides" })),
  ];
  for (const t of targets) {
    if (t.name === "*" || t.name.startsWith("mcp__") || hookKeys(t.name).some((n) => host.registry.has(n))) continue;
    const hint = didYouMean(
      t.name,
      host.registry.listing().map((row) => row.name),
    );
    addDiagnostic(host, record, {
      severity: "warning",
      file: plugin.manifestPath,
      path: t.path,
      message: `"${t.name}" names no tool keel has, so this entry ${t.what} nothing.${hint} Tool names are case-sensitive; run \`keel tools\` for the list.`,
    });
  }
}

function registerVirtualTools(host: Host, { plugin, record }: PluginEntry, rules: NameRules): void {
  const name = plugin.manifest.name;
  for (const spec of plugin.manifest.virtualTools) {
    const refused = nameProblem(host, plugin, spec.name, rules, "Virtual tool", (owner) => `it may not shadow the existing tool "${spec.name}" from ${owner}`);
    if (refused) {
      skip(host, plugin, record, { kind: "virtual tool", name: spec.name, path: spec.path, reason: refused });
      continue;
    }
    for (const key of RESERVED_VIRTUAL_TOOL_METADATA)
      if (spec.metadata && key in spec.metadata)
        addDiagnostic(host, record, {
          severity: "warning",
          file: plugin.manifestPath,
          path: `${spec.path}.metadata.${key}`,
          message: `Metadata key "${key}" is reserved for keel (it sets it, or its hooks do); the manifest's value was ignored: remove it.`,
        });
    if (host.registry.register(createVirtualTool(name, spec))) record.contributions.virtualTools.push(spec.name);
    else
      skip(host, plugin, record, {
        kind: "virtual tool",
        name: spec.name,
        path: spec.path,
        reason: `Virtual tool "${spec.name}" was rejected by the registry (see the registry diagnostic).`,
      });
  }
}

function registerAliases(host: Host, { plugin, record }: PluginEntry, rules: NameRules): void {
  const name = plugin.manifest.name;
  for (const spec of plugin.manifest.aliases) {
    const refused = nameProblem(host, plugin, spec.name, rules, "Alias", (owner) => `the name is already taken by ${owner}`);
    if (refused) {
      skip(host, plugin, record, { kind: "alias", name: spec.name, path: spec.path, reason: refused });
      continue;
    }
    if (!host.registry.resolve(spec.baseTool)) {
      skip(host, plugin, record, {
        kind: "alias",
        name: spec.name,
        path: spec.path,
        reason: `Alias "${spec.name}" was skipped: base tool "${spec.baseTool}" does not exist.`,
      });
      continue;
    }
    const ok = host.registry.addAlias({
      name: spec.name,
      target: spec.baseTool,
      description: spec.description ?? `Plugin alias from ${name} for base tool ${spec.baseTool}.`,
      source: { kind: "plugin", id: name },
      // An allow rule naming this alias exactly must come from a level at least as trusted as the plugin.
      level: plugin.level === "user" ? "user" : "workspace",
    });
    if (ok) record.contributions.aliases.push({ name: spec.name, baseTool: spec.baseTool });
    else
      skip(host, plugin, record, {
        kind: "alias",
        name: spec.name,
        path: spec.path,
        reason: `Alias "${spec.name}" was rejected by the registry (see the registry diagnostic).`,
      });
  }
}

/**
 * Why this plugin may not register `toolName`, or undefined: for a workspace plugin a name a
 * user-level plugin declares, then (any level) a taken name or the name of one of keel's on-demand
 * tools, then (workspace) a reserved namespace. The same rules for aliases and virtual tools.
 */
function nameProblem(host: Host, plugin: LoadedPlugin, toolName: string, rules: NameRules, what: string, taken: (owner: string) => string): string | undefined {
  const workspace = plugin.level !== "user";
  const user = workspace ? rules.userNames.get(toolName) : undefined;
  if (user)
    return `${what} "${toolName}" was skipped: the user-level plugin "${user.manifest.name}" (${user.manifestPath}) declares the same name, and a workspace plugin may not take a user-level name. Pick another name.`;
  const owner = ownerOf(host, toolName);
  if (owner) return `${what} "${toolName}" was skipped: ${taken(owner)}.`;
  const keel = rules.reserved.keelTool(toolName);
  if (keel) return `${what} "${toolName}" was skipped: ${keel}; no plugin may take that name, even where the tool is not registered. Pick another name.`;
  const reserved = workspace ? rules.reserved.reason(toolName) : undefined;
  if (reserved)
    return `${what} "${toolName}" was skipped: ${reserved}, and workspace plugins may not use names reserved for keel's own tools. Pick another name, or install the plugin under $KEEL_HOME/plugins (user level) to use this one.`;
  return undefined;
}

/** Who owns a tool or alias name (`builtin`, `plugin:x (alias)`, ...), or undefined when free. */
function ownerOf(host: Host, name: string): string | undefined {
  const tool = host.registry.get(name);
  if (tool) return fmt(tool.source);
  if (!host.registry.has(name)) return undefined;
  const alias = host.registry.listAliases().find((a) => a.name === name);
  return alias ? `${fmt(alias.source)} (alias)` : "another tool";
}

function skip(host: Host, plugin: LoadedPlugin, record: PluginRecord, item: SkippedItem): void {
  record.skipped.push(item);
  addDiagnostic(host, record, { severity: "error", file: plugin.manifestPath, path: item.path, message: item.reason });
}

function addDiagnostic(host: Host, record: PluginRecord, d: { severity: "error" | "warning" | "info"; file: string; path?: string; message: string }): void {
  const diagnostic = { severity: d.severity, source: PLUGIN_DIAGNOSTIC_SOURCE, file: d.file, ...(d.path ? { path: d.path } : {}), message: d.message };
  host.diagnostics.add(diagnostic);
  record.diagnostics.push(diagnostic);
}
