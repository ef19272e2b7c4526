import type { Host, KeelPlugin } from "../../core/index.js";
import { TaskStore } from "./task-store.js";
import { taskTools } from "./task-tools.js";

const PLUGIN_NAME = "task-runtime";

/** Name under which the task store is provided to other runtimes (`host.service("tasks")`). */
export const TASKS_SERVICE = "tasks";

declare module "../../core/services.js" {
  interface KeelServices {
    /** The workspace's task store (task runtime). */
    tasks: TaskStore;
  }
}

/** The task store of a host (`.keel/state/tasks.json`), shared as the `tasks` service. */
export function taskStoreFor(host: Host): TaskStore {
  return host.service(TASKS_SERVICE) ?? new TaskStore(host.statePath("tasks.json"));
}

/** The task runtime: task_* tools and todo_write over `.keel/state/tasks.json`. */
export function taskRuntime(): KeelPlugin {
  return {
    name: PLUGIN_NAME,
    apply(host: Host) {
      const store = new TaskStore(host.statePath("tasks.json"));
      host.provide(TASKS_SERVICE, store);
      host.hooks.registerTools.tapPromise({ name: PLUGIN_NAME, stage: 0 }, async () => {
        for (const tool of taskTools(store, () => host.ensureStateDir("state"))) host.registry.register(tool);
      });
    },
  };
}
