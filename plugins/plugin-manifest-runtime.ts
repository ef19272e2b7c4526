import type { Host, KeelPlugin } from "../core/index.js";
import { loadPlugins, PLUGIN_DIAGNOSTIC_SOURCE, type PluginLoadResult } from "../manifests/plugin/load-plugins.js";
import type { PluginFs } from "../manifests/plugin/plugin-fs.js";
import { tapDeniedCommands } from "./denied-command-taps.js";
import { tapLifecycleHooks } from "./lifecycle-taps.js";
import { createPluginRecord, toHandOff, type PluginRuntimeService } from "./plugin-record.js";
import { registerPluginTools, type PluginEntry } from "./register-plugin-tools.js";
import { tapToolHooks } from "./tool-hook-taps.js";
import { RUN_HOOK_EVENTS } from "../manifests/hooks/run-hook-events.js";

const PLUGIN_NAME = "plugin-manifests";

declare module "../core/services.js" {
  interface KeelServices {
    /** Every loaded plugin's record and the files that failed (for `keel plugins`); others use `plugins`. */
    "plugin-records": PluginRuntimeService;
  }
}
const REGISTER_STAGE = 200;

/** Options of the plugin runtime (tests and benchmarks inject a file system). */
export interface PluginManifestRuntimeOptions {
  fs?: PluginFs;
}

/**
 * The plugin runtime: discovers plugin.json files in `apply` (so `host.service("plugins")` is
 * available before any `registerTools` tap), taps tool and lifecycle hooks per plugin, and
 * registers aliases and virtual tools at `registerTools` stage 200: after built-ins, runtimes and
 * the agent (stage ≤ 100), so no plugin takes one of their names and reserved namespaces are complete.
 * Every problem is a diagnostic with source `plugin`; nothing here throws to the host.
 */
export function pluginManifestRuntime(options: PluginManifestRuntimeOptions = {}): KeelPlugin {
  return {
    name: PLUGIN_NAME,
    async apply(host: Host) {
      const ws = host.workspace;
      const loaded: PluginLoadResult = await loadPlugins({ cwd: ws.cwd, root: ws.root, keelHome: ws.keelHome }, options.fs);
      for (const d of loaded.diagnostics) host.diagnostics.add(d);
      const entries: PluginEntry[] = loaded.plugins.map((plugin) => ({ plugin, record: createPluginRecord(plugin, host.trusted) }));
      for (const { plugin, record } of entries) {
        try {
          tapToolHooks(host, plugin);
          tapLifecycleHooks(host, plugin);
          tapDeniedCommands(host, plugin);
        } catch (error) {
          const d = {
            severity: "error" as const,
            source: PLUGIN_DIAGNOSTIC_SOURCE,
            file: plugin.manifestPath,
            message: `Hooks of plugin ${plugin.manifest.name} could not be tapped: ${(error as Error).message}`,
          };
          host.diagnostics.add(d);
          record.diagnostics.push(d);
        }
        const notRun = plugin.informational.filter(
          (i) => i.kind !== "skill" && i.kind !== "command" && i.kind !== "agent" && !(i.kind === "hook-event" && RUN_HOOK_EVENTS.has(i.name)),
        );
        if (notRun.length) {
          const summary = summarize(notRun);
          const d = {
            severity: "info" as const,
            source: PLUGIN_DIAGNOSTIC_SOURCE,
            file: plugin.manifestPath,
            message: `Plugin ${plugin.manifest.name} bundles ${summary}; keel records these but does not run them yet.`,
          };
          host.diagnostics.add(d);
          record.diagnostics.push(d);
        }
      }
      // Code modules (`main`) are imported only when a plugin names one.
      const code = entries.some((e) => e.plugin.manifest.main !== undefined)
        ? await (await import("./code-plugins.js")).applyCodePlugins(host, entries)
        : undefined;
      const service: PluginRuntimeService = {
        handOffs: () => loaded.plugins.map(toHandOff),
        records: () => entries.map((e) => e.record),
        failed: () => loaded.failed,
      };
      host.provide("plugins", service);
      host.provide("plugin-records", service);
      host.hooks.registerTools.tapPromise({ name: PLUGIN_NAME, stage: REGISTER_STAGE }, async () => registerPluginTools(host, entries, code?.userNames));
    },
  };
}

function summarize(items: { kind: string; name: string }[]): string {
  const byKind = new Map<string, string[]>();
  for (const i of items) byKind.set(i.kind, [...(byKind.get(i.kind) ?? []), i.name]);
  return [...byKind]
    .map(([kind, names]) => `${names.length} Claude Code ${kind}${names.length === 1 ? "" : "s"} (${[...new Set(names)].join(", ")})`)
    .join(", ");
}
