import type { Host, KeelPlugin } from "../../core/index.js";
import { configTools } from "./config-tools.js";

const PLUGIN_NAME = "config-runtime";

/** The config runtime: config_list, config_get, config_set over the five config layers. */
export function configRuntime(): KeelPlugin {
  return {
    name: PLUGIN_NAME,
    apply(host: Host) {
      host.hooks.registerTools.tapPromise({ name: PLUGIN_NAME, stage: 0 }, async () => {
        for (const tool of configTools(host)) host.registry.register(tool);
      });
    },
  };
}
