import type { Host, KeelPlugin } from "../../core/index.js";
import { taskStoreFor } from "../task/index.js";
import { PlanStore } from "./plan-store.js";
import { planTools } from "./plan-tools.js";

const PLUGIN_NAME = "plan-runtime";

/** The plan runtime: plan_get, update_plan, plan_clear over `.keel/state/plan.json`, synced with the task store. */
export function planRuntime(): KeelPlugin {
  return {
    name: PLUGIN_NAME,
    apply(host: Host) {
      host.hooks.registerTools.tapPromise({ name: PLUGIN_NAME, stage: 0 }, async () => {
        const store = new PlanStore(host.statePath("plan.json"), taskStoreFor(host));
        for (const tool of planTools(store, () => host.ensureStateDir("state"))) host.registry.register(tool);
      });
    },
  };
}
