import type { KeelPlugin } from "../core/host.js";

/** The plugin-manifest runtime(s) applied to every host. */
export function pluginRuntimes(): KeelPlugin[] {
  return [];
}
