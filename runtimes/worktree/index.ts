import type { Host, KeelPlugin } from "../../core/host.js";
import type { WorktreeService } from "../../core/services.js";
import { WorktreeManager } from "./worktree-manager.js";
import { worktreeTools } from "./worktree-tools.js";

const PLUGIN_NAME = "worktree-runtime";

/**
 * The worktree runtime: provides the `"worktrees"` service, registers the worktree tools, and —
 * when the workspace state says a worktree is active and its directory exists — moves
 * `host.activeDir` into it so this process works inside the worktree.
 */
export function worktreeRuntime(): KeelPlugin {
  return {
    name: PLUGIN_NAME,
    async apply(host: Host) {
      const manager = new WorktreeManager(host);
      await manager.load();
      host.provide<WorktreeService>("worktrees", manager);
      host.provide<WorktreeManager>("worktree-manager", manager);
      host.hooks.registerTools.tapPromise(PLUGIN_NAME, async () => {
        for (const tool of worktreeTools(manager)) host.registry.register(tool);
      });
    },
  };
}
