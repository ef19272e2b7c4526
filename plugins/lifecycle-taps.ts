import type { GuidanceEntry, Host } from "../core/index.js";
import type { LifecycleHookName } from "../manifests/plugin/plugin-manifest-schema.js";
import type { LoadedPlugin } from "../manifests/plugin/load-plugins.js";

/**
 * Taps each lifecycle hook a plugin names, with the plugin's name as tap name:
 * beforePrompt/onResume → `ctx.guidance`, afterTurn → `ctx.notes`, beforePersist → `ctx.markers`,
 * beforeDelegate → `ctx.prefix`, afterDelegate → `ctx.suffix`. Entries are `{source: plugin, text}`.
 */
export function tapLifecycleHooks(host: Host, plugin: LoadedPlugin): void {
  const source = plugin.manifest.name;
  const texts = new Map<LifecycleHookName, string[]>();
  for (const h of plugin.manifest.hooks) texts.set(h.hook, [...(texts.get(h.hook) ?? []), ...h.texts]);
  const entries = (hook: LifecycleHookName): GuidanceEntry[] => (texts.get(hook) ?? []).map((text) => ({ source, text }));
  const hooks = host.hooks;
  for (const hook of texts.keys()) {
    switch (hook) {
      case "beforePrompt":
        hooks.beforePrompt.tapPromise(source, async (ctx) => (ctx.guidance.push(...entries(hook)), ctx));
        break;
      case "onResume":
        hooks.onResume.tapPromise(source, async (ctx) => (ctx.guidance.push(...entries(hook)), ctx));
        break;
      case "afterTurn":
        hooks.afterTurn.tapPromise(source, async (ctx) => void ctx.notes.push(...entries(hook)));
        break;
      case "beforePersist":
        hooks.beforePersist.tapPromise(source, async (ctx) => void ctx.markers.push(...entries(hook)));
        break;
      case "beforeDelegate":
        hooks.beforeDelegate.tapPromise(source, async (ctx) => (ctx.prefix.push(...entries(hook)), ctx));
        break;
      case "afterDelegate":
        hooks.afterDelegate.tapPromise(source, async (ctx) => (ctx.suffix.push(...entries(hook)), ctx));
        break;
    }
  }
}
