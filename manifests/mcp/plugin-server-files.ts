import { outsideRunProblem, redactSecrets, yourOwners } from "../../core/index.js";
import type { McpServerConfig } from "./mcp-server-config.js";

/**
 * Why keel does not start `server`, a stdio server of a user-level plugin, as you, or undefined when it may (or the
 * server is no such server): its `command` or a script its `args` give a known interpreter is a file outside the
 * plugin's folder that another user owns or may write, or lies in a folder another user may rename entries of (see
 * `outsideRunProblem`; relative paths resolve in the server's `cwd` when the entry names one). The message names the
 * server, the plugin, the file and the fix. Checked when the server is found and again each time it starts. Never throws.
 */
export function pluginServerProblem(server: McpServerConfig, owners: ReadonlySet<number> | undefined = yourOwners(process.env)): string | undefined {
  const root = server.origin.userPluginRoot;
  if (root === undefined || server.transport !== "stdio" || !server.command) return undefined;
  const problem = outsideRunProblem(
    [[server.command, ...server.args]],
    { root, env: { HOME: server.env.HOME ?? process.env.HOME }, shell: false, ...(server.defaultCwd ? {} : { cwd: server.cwd }) },
    owners,
  );
  if (problem === undefined) return undefined;
  // a path may hold a value `${VAR}` expansion put in (the server's `secrets`): never shown
  return `MCP server "${server.name}" of the user-level plugin "${server.origin.plugin ?? "?"}" (${root}) is not started: ${redactSecrets(problem, server.secrets)}. keel starts your plugins' servers as you, so another user could have it run their code with your permissions. Make that file, and every folder above it, yours or root's and writable by you only (\`chown\`, \`chmod go-w\`), or move the script into the plugin's folder.`;
}
