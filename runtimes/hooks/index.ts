import { type Host, inToolProcess, type KeelPlugin } from "../../core/index.js";
import type { HookIssue } from "../../manifests/hooks/claude-hooks-schema.js";
import type { DeclaredHook } from "./collect-hooks.js";
import type { HookStateStore } from "./hook-state.js";

const PLUGIN_NAME = "claude-hooks";

/** What `keel hooks` reads: every declared hook, the problems found, and the last outcomes. */
export interface ClaudeHooksService {
  hooks(): readonly DeclaredHook[];
  issues(): readonly HookIssue[];
  state(): HookStateStore | undefined;
}

declare module "../../core/services.js" {
  interface KeelServices {
    /** Claude Code command hooks declared for this host (see runtimes/hooks). */
    "claude-hooks": ClaudeHooksService;
  }
}

/** Options of the hooks runtime. */
export interface ClaudeHooksOptions {
  /** Shows a hook's non-blocking error to the user (default: the host's `notice`). */
  report?: (line: string) => void;
}

/**
 * Claude Code command hooks: collected from keel config, `.claude/settings*.json` and plugins;
 * workspace-level hooks run only in a trusted workspace (otherwise a diagnostic names the file and
 * how to trust it). Tool events run inside the tool pipeline, session events in the agent. A host
 * without any hooks source loads nothing more (the hook modules load only when there is one).
 */
export function claudeHooksRuntime(options: ClaudeHooksOptions = {}): KeelPlugin {
  return {
    name: PLUGIN_NAME,
    async apply(host: Host) {
      const found: { hooks: DeclaredHook[]; issues: HookIssue[]; state?: HookStateStore } = { hooks: [], issues: [] };
      host.provide("claude-hooks", { hooks: () => found.hooks, issues: () => found.issues, state: () => found.state });
      if (!hasHookSource(host)) return;
      const [
        { collectHooks, trustHint },
        { HookStateStore, hookKey, userHookStateFile },
        { HookDispatcher },
        { tapToolHooks },
        { tapAgentHooks },
        { holdBackOutsideScripts },
      ] = await Promise.all([
        import("./collect-hooks.js"),
        import("./hook-state.js"),
        import("./hook-dispatcher.js"),
        import("./tool-hook-taps.js"),
        import("./agent-hook-taps.js"),
        import("./outside-scripts.js"),
      ]);
      // The shell parser names the scripts a trusted workspace's hooks run, for their trust pins. Only workspace hooks
      // are pinned; of yours, only a user-level plugin's hook that may run a file outside the plugin loads it.
      const parser = host.trust.approved && hasHookSource(host, "workspace") ? await import("unbash") : undefined;
      const collected = collectHooks(host, parser);
      const issues = collected.issues;
      const hooks = await holdBackOutsideScripts(host, collected.hooks, issues, parser);
      const userKeys = new Set(hooks.filter((h) => h.origin.level === "user").map((h) => hookKey(h.origin.file, h.path)));
      const state = new HookStateStore(
        host.statePath("hooks.json"),
        userHookStateFile(host.workspace.keelHome, host.workspace.root),
        (key) => userKeys.has(key),
        () => host.ensureStateDir("state"),
      );
      Object.assign(found, { hooks, issues, state });
      for (const i of issues) host.diagnostics.add({ severity: i.severity, source: "hooks", file: i.file, path: i.path, message: i.message });
      const untrusted = new Map<string, number>();
      for (const h of hooks)
        if (!h.runs && h.origin.level === "workspace" && !host.trusted) untrusted.set(h.origin.file, (untrusted.get(h.origin.file) ?? 0) + 1);
      for (const [file, n] of untrusted)
        host.diagnostics.add({
          severity: "warning",
          source: "hooks",
          file,
          message: `${n} Claude Code hook${n === 1 ? "" : "s"} in this file do${n === 1 ? "es" : ""} not run: this workspace is not trusted, and hooks are code. ${trustHint(inToolProcess(host.env))}`,
        });
      if (!hooks.some((h) => h.runs || h.untrusted)) return;
      const report = options.report ?? host.options.notice ?? (() => undefined);
      const dispatcher = new HookDispatcher(host, hooks, state, report);
      host.hooks.shutdown.tapPromise(PLUGIN_NAME, () => dispatcher.close());
      tapToolHooks(host, dispatcher);
      tapAgentHooks(host, dispatcher);
    },
  };
}

/** True when a config layer has a `hooks` key or a plugin carries Claude Code hooks (`workspace`: only the workspace's own). */
function hasHookSource(host: Host, only?: "workspace"): boolean {
  const layers = host.configInfo.layers.filter((l) => l.source !== "legacy" && (only === undefined || l.source !== "user"));
  if (layers.some((l) => l.value?.hooks !== undefined)) return true;
  return (host.service("plugins")?.handOffs() ?? []).some(
    (p) => (only === undefined || !p.userLevel) && p.claudeHooks && (p.claudeHooks.files.length || Object.keys(p.claudeHooks.inline).length),
  );
}
