import type { BlockDecision, Host } from "../core/index.js";
import type { ToolHookSpec } from "../manifests/plugin/plugin-manifest-schema.js";
import type { LoadedPlugin } from "../manifests/plugin/load-plugins.js";
import { CLAUDE_AGENT_TOOLS } from "../manifests/claude/claude-tool-names.js";

/** Tool hooks of one plugin indexed by tool name (`*` = every tool). */
interface ToolHookIndex {
  blocked: Set<string>;
  hooks: Map<string, ToolHookSpec[]>;
}

/**
 * Each name a tool hook or block is keyed by: as written, and for a Claude Code tool name (`Bash`,
 * `Write`, `Edit`, …) also the keel tool it stands for, as hook matchers and permission rules read
 * it: `"blocked_tools": ["Bash"]` blocks `bash` instead of nothing.
 */
export function hookKeys(name: string): string[] {
  const keel = Object.hasOwn(CLAUDE_AGENT_TOOLS, name) ? CLAUDE_AGENT_TOOLS[name] : undefined;
  return keel && keel !== name ? [name, keel] : [name];
}

function indexOf(plugin: LoadedPlugin): ToolHookIndex {
  const hooks = new Map<string, ToolHookSpec[]>();
  for (const h of plugin.manifest.toolHooks) for (const key of hookKeys(h.tool)) hooks.set(key, [...(hooks.get(key) ?? []), h]);
  return { blocked: new Set(plugin.manifest.blockedTools.flatMap((b) => hookKeys(b.name))), hooks };
}

/** Hooks of the plugin that apply to a call: `*` first, then the called name, then the resolved tool. */
function matching(index: ToolHookIndex, calledAs: string, resolved: string): ToolHookSpec[] {
  const names = calledAs === resolved ? ["*", calledAs] : ["*", calledAs, resolved];
  const found = names.flatMap((n) => index.hooks.get(n) ?? []);
  // `Bash` and `bash` in one manifest key the same hook twice: each text once
  return found.length > 1 ? [...new Set(found)] : found;
}

/**
 * The block decision a plugin makes for a call, if any: a matching `blockMessage` blocks with its
 * exact text (also for a tool in `blocked_tools`); otherwise `blocked_tools` blocks with the default text.
 */
function decide(plugin: string, index: ToolHookIndex, calledAs: string, resolved: string): BlockDecision | undefined {
  const blocking = matching(index, calledAs, resolved).find((h) => h.blockMessage);
  if (blocking) return { block: true, message: blocking.blockMessage!, by: plugin, metadata: { plugin_blocked: true } };
  const hit = index.blocked.has(resolved) ? resolved : index.blocked.has(calledAs) ? calledAs : undefined;
  if (hit) return { block: true, message: `Plugin ${plugin} blocked tool ${hit}.`, by: plugin, metadata: { plugin_blocked: true } };
  return undefined;
}

/**
 * Taps `beforeTool`, `afterResult` and `toolBlocked` once per plugin (tap name = plugin name,
 * discovery order). Blocks match the resolved tool too, so an alias cannot bypass a block.
 */
export function tapToolHooks(host: Host, plugin: LoadedPlugin): void {
  const name = plugin.manifest.name;
  const index = indexOf(plugin);
  if (index.blocked.size === 0 && index.hooks.size === 0) return;
  const hasBefore = plugin.manifest.toolHooks.some((h) => h.beforeTool || h.blockMessage) || index.blocked.size > 0;
  const hasAfter = plugin.manifest.toolHooks.some((h) => h.afterResult);
  const canBlock = index.blocked.size > 0 || plugin.manifest.toolHooks.some((h) => h.blockMessage);
  if (hasBefore)
    host.hooks.beforeTool.tapPromise(name, async (ctx) => {
      const hooks = matching(index, ctx.calledAs, ctx.tool.name);
      for (const h of hooks) if (h.beforeTool) ctx.messages.push(`${name}: ${h.beforeTool}`);
      return decide(name, index, ctx.calledAs, ctx.tool.name);
    });
  if (hasAfter)
    host.hooks.afterResult.tapPromise(name, async (ctx) => {
      const resolved = ctx.tool?.name ?? ctx.calledAs;
      for (const h of matching(index, ctx.calledAs, resolved)) if (h.afterResult) ctx.observation.messages.afterResult.push(`${name}: ${h.afterResult}`);
      return ctx;
    });
  if (canBlock) host.hooks.toolBlocked.tap(name, (q) => decide(name, index, q.calledAs, q.tool.name));
}
