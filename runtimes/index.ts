import type { KeelPlugin } from "../core/host.js";

/**
 * Every domain runtime, in application order. Each is a plugin (`apply(host)`) living in its
 * own folder under `runtimes/`. Add one line per runtime.
 */
export function defaultRuntimes(): KeelPlugin[] {
  return [
  ];
}
