import type { Diagnostics, PluginHandOff, Workspace } from "../../core/index.js";
import { existsSync } from "node:fs";
import { MCP_MANIFEST_NAMES } from "../../core/index.js";
import { dirname, join, resolve } from "node:path";
import { discoveryDirs, linkedIntoExcluded } from "../discovery-scope.js";
import type { LocalResource, McpServerConfig, McpServerOrigin } from "./mcp-server-config.js";
import { pluginServerProblem } from "./plugin-server-files.js";

/** Manifest file names looked for in each directory, in precedence order (core: a tool's write to one is a protected write). */
export { MCP_MANIFEST_NAMES };

/** Source of MCP manifest diagnostics. */
export const MCP_DIAGNOSTIC_SOURCE = "mcp";
const SOURCE = MCP_DIAGNOSTIC_SOURCE;

/** Everything discovery found: servers (one per name, case-insensitively: user level first, then the first definition) and top-level local resources. */
export interface DiscoveredMcp {
  servers: McpServerConfig[];
  resources: LocalResource[];
  /** Manifest files that were read, in order. */
  files: string[];
}

/** Inputs of discovery; `env` is used for `${VAR}` expansion. */
export interface DiscoverOptions {
  workspace: Workspace;
  env: NodeJS.ProcessEnv;
  diagnostics: Diagnostics;
  handOffs?: PluginHandOff[];
}

/**
 * Finds MCP manifests from the working directory up to the workspace root (nearest first; never
 * inside `node_modules/`, `.git/` or `.keel/worktrees/`), then plugin hand-offs, then
 * `$KEEL_HOME/mcp.json`. Never throws: invalid files or entries become diagnostics naming file,
 * JSON path and reason; everything else loads. Server names match case-insensitively: a user-level
 * definition (`$KEEL_HOME/mcp.json`, user-level plugins) always wins over a workspace one; within a
 * level the first definition wins. Every ignored definition gets a warning naming the winner.
 * The parser (and its zod schema) loads only when there is a manifest to parse.
 */
export async function discoverMcpServers(opts: DiscoverOptions): Promise<DiscoveredMcp> {
  let parser: typeof import("./parse-mcp-manifest.js") | undefined;
  const parse = async () => (parser ??= await import("./parse-mcp-manifest.js"));
  const out: DiscoveredMcp = { servers: [], resources: [], files: [] };
  const seen = new Map<string, McpServerConfig>();
  // Servers whose tools would share the `mcp__<name>__` prefix (`git.hub` and `git_hub`): a workspace
  // server must not take a user-level server's tool names (and with them the user's rules about them).
  const userByPrefix = new Map<string, McpServerConfig>();
  const workspaceByPrefix = new Map<string, McpServerConfig[]>();
  const add = (server: McpServerConfig) => {
    const key = server.name.toLowerCase();
    const prefix = toolPrefixKey(server.name);
    if (!server.trustedByOrigin && userByPrefix.has(prefix)) return ignoredForUserLevel(opts, server, userByPrefix.get(prefix)!);
    if (server.trustedByOrigin)
      for (const w of workspaceByPrefix.get(prefix) ?? []) {
        if (w.name.toLowerCase() === key || seen.get(w.name.toLowerCase()) !== w) continue;
        out.servers.splice(out.servers.indexOf(w), 1);
        seen.delete(w.name.toLowerCase());
        ignoredForUserLevel(opts, w, server);
      }
    addByName(server, key);
    if (seen.get(key) !== server) return;
    if (!server.trustedByOrigin) workspaceByPrefix.set(prefix, [...(workspaceByPrefix.get(prefix) ?? []), server]);
    else if (!userByPrefix.has(prefix)) userByPrefix.set(prefix, server);
  };
  const addByName = (server: McpServerConfig, key: string) => {
    const winner = seen.get(key);
    if (!winner) {
      seen.set(key, server);
      out.servers.push(server);
    } else if (server.trustedByOrigin && !winner.trustedByOrigin) {
      seen.set(key, server);
      out.servers[out.servers.indexOf(winner)] = server;
      ignoredForUserLevel(opts, winner, server);
    } else if (!server.trustedByOrigin && winner.trustedByOrigin) ignoredForUserLevel(opts, server, winner);
    else
      opts.diagnostics.warn(
        SOURCE,
        `MCP server "${server.name}" is defined again here and was ignored; the definition in ${winner.origin.file} (${winner.origin.path}) wins. Rename one of them to use both.`,
        { file: server.origin.file, path: server.origin.path },
      );
  };
  for (const dir of discoveryDirs(opts.workspace.cwd, opts.workspace.root)) {
    for (const name of MCP_MANIFEST_NAMES) {
      const file = join(dir, name);
      if (resolve(file) === resolve(opts.workspace.keelHome, "mcp.json")) continue;
      if (!existsSync(file)) continue;
      const linked = linkedIntoExcluded(opts.workspace.root, file);
      if (linked) {
        opts.diagnostics.warn(SOURCE, linked, { file });
        continue;
      }
      (await parse()).loadManifestFile(file, { file, path: "", scope: "workspace" }, false, opts, out, add);
    }
  }
  for (const h of opts.handOffs ?? []) {
    if (Object.keys(h.mcpServers).length === 0) continue;
    // servers grouped by the file they came from (relative `cwd`s resolve against it)
    const byFile = new Map<string, Record<string, unknown>>();
    for (const [name, config] of Object.entries(h.mcpServers)) {
      const file = h.mcpServerFiles?.[name] ?? h.mcpServersFile ?? h.manifestPath;
      if (!byFile.has(file)) byFile.set(file, {});
      Object.defineProperty(byFile.get(file)!, name, { value: config, enumerable: true, writable: true, configurable: true });
    }
    // Your plugin's servers run as you: one whose command runs a file outside the plugin that another user could change does not start.
    const checked = h.userLevel ? (server: McpServerConfig) => add(refuseOutsideFiles(server, opts)) : add;
    for (const [file, mcpServers] of byFile) {
      const origin: McpServerOrigin = { file, path: "mcpServers", scope: "plugin", plugin: h.plugin, ...(h.userLevel ? { userPluginRoot: h.root } : {}) };
      (await parse()).loadDocument({ mcpServers }, dirname(file), origin, h.userLevel, opts, out, checked);
    }
  }
  const userFile = join(opts.workspace.keelHome, "mcp.json");
  if (existsSync(userFile)) (await parse()).loadManifestFile(userFile, { file: userFile, path: "", scope: "user" }, true, opts, out, add);
  return out;
}

/** `server`, after an error naming it, its plugin, the file and the fix when `pluginServerProblem` refuses it (the runtime then does not start it). */
function refuseOutsideFiles(server: McpServerConfig, opts: DiscoverOptions): McpServerConfig {
  const problem = pluginServerProblem(server);
  if (problem !== undefined) opts.diagnostics.error(SOURCE, problem, { file: server.origin.file, path: server.origin.path });
  return server;
}

/** The registered tool-name prefix a server name leads to (`mcp__<sanitized>__`, as the MCP runtime names tools), case-insensitively. */
function toolPrefixKey(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "_").toLowerCase();
}

/** Warns on a workspace definition displaced by a user-level one of the same name. */
function ignoredForUserLevel(opts: DiscoverOptions, workspace: McpServerConfig, user: McpServerConfig): void {
  opts.diagnostics.warn(
    SOURCE,
    `MCP server "${workspace.name}" defined here was ignored: the user-level server "${user.name}" in ${user.origin.file} (${user.origin.path}) has the same name (names match case-insensitively, and names whose tools would share a registered name, like "a.b" and "a_b", count as the same), and a workspace may not replace a user-level server. Rename this one to use both.`,
    { file: workspace.origin.file, path: workspace.origin.path },
  );
}
