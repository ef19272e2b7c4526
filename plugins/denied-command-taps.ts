import { commandDenier, type CommandDenier, type Host } from "../core/index.js";
import type { LoadedPlugin } from "../manifests/plugin/load-plugins.js";

/**
 * Taps `beforeTool` for a plugin that denies command prefixes (a Gemini CLI extension's
 * `run_shell_command(rm)`): a `bash` call (also through an alias) running one is blocked with a
 * message naming the plugin and the manifest entry. A deny only restricts, so it applies in an
 * untrusted workspace too. The rule checker is built on the first bash call.
 */
export function tapDeniedCommands(host: Host, plugin: LoadedPlugin): void {
  const denied = plugin.deniedCommands;
  if (!denied.length) return;
  const name = plugin.manifest.name;
  let denier: Promise<CommandDenier> | undefined;
  host.hooks.beforeTool.tapPromise(name, async (ctx) => {
    if (ctx.tool.name !== "bash") return undefined;
    const cwd = ctx.run.cwd ?? host.activeDir;
    const why = (await (denier ??= commandDenier(denied.map((d) => d.prefix))))(ctx.tool, ctx.input, cwd, host.confinementRoot(cwd));
    if (!why) return undefined;
    const entries = denied.map((d) => `run_shell_command(${d.prefix})`).join(", ");
    return {
      block: true,
      message: `${plugin.layout === "gemini" ? "Gemini CLI extension" : "Plugin"} ${name} excludes ${entries} (${plugin.manifestPath}, excludeTools): ${why}; the call was blocked.`,
      by: name,
      metadata: { plugin_blocked: true },
    };
  });
}
