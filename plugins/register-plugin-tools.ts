import type { Host } from "../core/host.js";
import { fmt } from "../core/registry.js";
import type { LoadedPlugin } from "../manifests/plugin/load-plugins.js";
import { PLUGIN_DIAGNOSTIC_SOURCE } from "../manifests/plugin/load-plugins.js";
import type { PluginRecord, SkippedItem } from "./plugin-record.js";
import { createVirtualTool, RESERVED_VIRTUAL_TOOL_METADATA } from "./virtual-tool.js";

/** A loaded plugin paired with its record. */
export interface PluginEntry {
  plugin: LoadedPlugin;
  record: PluginRecord;
}

/**
 * Registers every plugin's virtual tools (first pass) then aliases (second pass, so an alias
 * may target a virtual tool), in discovery order: first name wins, skips become diagnostics
 * on `host.diagnostics` and entries in the plugin's record. Never throws.
 */
export function registerPluginTools(host: Host, entries: PluginEntry[]): void {
  for (const entry of entries) registerVirtualTools(host, entry);
  for (const entry of entries) registerAliases(host, entry);
}

function registerVirtualTools(host: Host, { plugin, record }: PluginEntry): void {
  const name = plugin.manifest.name;
  for (const spec of plugin.manifest.virtualTools) {
    const owner = ownerOf(host, spec.name);
    if (owner) {
      skip(host, plugin, record, { kind: "virtual tool", name: spec.name, path: spec.path, reason: `Virtual tool "${spec.name}" was skipped: it may not shadow the existing tool "${spec.name}" from ${owner}.` });
      continue;
    }
    for (const key of RESERVED_VIRTUAL_TOOL_METADATA)
      if (spec.metadata && key in spec.metadata) addDiagnostic(host, record, { severity: "warning", file: plugin.manifestPath, path: `${spec.path}.metadata.${key}`, message: `Metadata key "${key}" is reserved; keel sets it and the manifest's value was ignored.` });
    if (host.registry.register(createVirtualTool(name, spec))) record.contributions.virtualTools.push(spec.name);
    else skip(host, plugin, record, { kind: "virtual tool", name: spec.name, path: spec.path, reason: `Virtual tool "${spec.name}" was rejected by the registry (see the registry diagnostic).` });
  }
}

function registerAliases(host: Host, { plugin, record }: PluginEntry): void {
  const name = plugin.manifest.name;
  for (const spec of plugin.manifest.aliases) {
    const owner = ownerOf(host, spec.name);
    if (owner) {
      skip(host, plugin, record, { kind: "alias", name: spec.name, path: spec.path, reason: `Alias "${spec.name}" was skipped: the name is already taken by ${owner}.` });
      continue;
    }
    if (!host.registry.resolve(spec.baseTool)) {
      skip(host, plugin, record, { kind: "alias", name: spec.name, path: spec.path, reason: `Alias "${spec.name}" was skipped: base tool "${spec.baseTool}" does not exist.` });
      continue;
    }
    const ok = host.registry.addAlias({
      name: spec.name,
      target: spec.baseTool,
      description: spec.description ?? `Plugin alias from ${name} for base tool ${spec.baseTool}.`,
      source: { kind: "plugin", id: name },
    });
    if (ok) record.contributions.aliases.push({ name: spec.name, baseTool: spec.baseTool });
    else skip(host, plugin, record, { kind: "alias", name: spec.name, path: spec.path, reason: `Alias "${spec.name}" was rejected by the registry (see the registry diagnostic).` });
  }
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
