import type { KeelPlugin } from "../core/index.js";
import { pluginManifestRuntime } from "./plugin-manifest-runtime.js";

/** The plugin-manifest runtime(s) applied to every host. */
export function pluginRuntimes(): KeelPlugin[] {
  return [pluginManifestRuntime()];
}
