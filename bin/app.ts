import { Host, type HostOptions } from "../core/host.js";
import { builtinTools } from "../core/tools/builtin-tools.js";
import { pluginRuntimes } from "../plugins/index.js";
import { defaultRuntimes } from "../runtimes/index.js";

/**
 * Creates a fully assembled host: built-in tools, the plugin-manifest runtime and every domain
 * runtime applied (webpack-style: built-in features are plugins too), then tools registered.
 * Throws ManifestError for invalid config. The caller must `close()` the host.
 */
export async function createKeelHost(options: HostOptions): Promise<Host> {
  // Start loading the agent plugin now so its modules load while config and trust are read;
  // it is still applied last. (A failed import surfaces at the `await` below.)
  const agentModule = import("../core/agent/agent-plugin.js");
  agentModule.catch(() => undefined);
  const host = await Host.create(options);
  await host.use(builtinTools(), ...pluginRuntimes(), ...defaultRuntimes());
  await host.use((await agentModule).agentPlugin());
  await host.init();
  return host;
}
