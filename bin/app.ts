import { agentPlugin, builtinTools, Host, type HostOptions } from "../core/index.js";
import { pluginRuntimes } from "../plugins/index.js";
import { defaultRuntimes } from "../runtimes/index.js";

/**
 * Creates a fully assembled host: built-in tools, the plugin-manifest runtime and every domain
 * runtime applied (webpack-style: built-in features are plugins too), then tools registered.
 * Throws ManifestError for invalid config. The caller must `close()` the host.
 */
export async function createKeelHost(options: HostOptions): Promise<Host> {
  const host = await Host.create(options);
  await host.use(builtinTools(), ...pluginRuntimes(), ...defaultRuntimes());
  // The agent loop is applied last: it sees every tool the others registered.
  await host.use(agentPlugin());
  await host.init();
  return host;
}
