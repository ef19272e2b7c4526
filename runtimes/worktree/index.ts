import type { Host, KeelPlugin } from "../../core/index.js";
import { WorktreeManager } from "./worktree-manager.js";
import { worktreeTools } from "./worktree-tools.js";

const PLUGIN_NAME = "worktree-runtime";

declare module "../../core/services.js" {
  interface KeelServices {
    /** The worktree runtime's manager (list, gc, status for the CLI); other runtimes use `worktrees`. */
    "worktree-manager": WorktreeManager;
  }
}

/**
 * The worktree runtime: provides the `"worktrees"` service, registers the worktree tools, and —
 * when the workspace state names an active worktree that passes the checks (its own folder under
 * `.keel/worktrees/`, listed by git) — moves `host.activeDir` into it, or sets
 * `host.activeDirError` when its directory vanished. Forged entries only get a diagnostic.
 */
export function worktreeRuntime(): KeelPlugin {
  return {
    name: PLUGIN_NAME,
    async apply(host: Host) {
      const manager = new WorktreeManager(host);
      await manager.load();
      host.provide("worktrees", manager);
      host.provide("worktree-manager", manager);
      host.hooks.registerTools.tapPromise(PLUGIN_NAME, async () => {
        for (const tool of worktreeTools(manager)) host.registry.register(tool);
      });
    },
  };
}
