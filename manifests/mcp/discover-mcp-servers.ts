import { type Diagnostics, MAX_MANIFEST_BYTES, type PluginHandOff, readRegularFile, type Workspace } from "../../core/index.js";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { discoveryDirs, linkedIntoExcluded } from "../discovery-scope.js";
import { expandMap, expandVars } from "./expand-vars.js";
import { LocalResourceSchema, McpServerEntrySchema, normalizeTransport } from "./mcp-manifest-schema.js";
import type { LocalResource, McpServerConfig, McpServerOrigin } from "./mcp-server-config.js";

/** Manifest file names looked for in each directory, in precedence order. */
export const MCP_MANIFEST_NAMES = [".claw-mcp.json", ".mcp.json", ".codex-mcp.json", "mcp.json"] as const;

const SOURCE = "mcp";

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
 */
export function discoverMcpServers(opts: DiscoverOptions): DiscoveredMcp {
  const out: DiscoveredMcp = { servers: [], resources: [], files: [] };
  const seen = new Map<string, McpServerConfig>();
  const add = (server: McpServerConfig) => {
    const key = server.name.toLowerCase();
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
      loadManifestFile(file, { file, path: "", scope: "workspace" }, false, opts, out, add);
    }
  }
  for (const h of opts.handOffs ?? []) {
    const file = h.mcpServersFile ?? h.manifestPath;
    const origin: McpServerOrigin = { file, path: "mcpServers", scope: "plugin", plugin: h.plugin };
    loadDocument({ mcpServers: h.mcpServers }, dirname(file), origin, h.userLevel, opts, out, add);
  }
  const userFile = join(opts.workspace.keelHome, "mcp.json");
  if (existsSync(userFile)) loadManifestFile(userFile, { file: userFile, path: "", scope: "user" }, true, opts, out, add);
  return out;
}

/** Warns on a workspace definition displaced by a user-level one of the same name. */
function ignoredForUserLevel(opts: DiscoverOptions, workspace: McpServerConfig, user: McpServerConfig): void {
  opts.diagnostics.warn(
    SOURCE,
    `MCP server "${workspace.name}" defined here was ignored: the user-level server "${user.name}" in ${user.origin.file} (${user.origin.path}) has the same name (names match case-insensitively), and a workspace may not replace a user-level server. Rename this one to use both.`,
    { file: workspace.origin.file, path: workspace.origin.path },
  );
}

function loadManifestFile(
  file: string,
  origin: McpServerOrigin,
  trusted: boolean,
  opts: DiscoverOptions,
  out: DiscoveredMcp,
  add: (s: McpServerConfig) => void,
): void {
  let doc: unknown;
  let text: string;
  try {
    text = readRegularFile(file, MAX_MANIFEST_BYTES);
  } catch (error) {
    opts.diagnostics.error(SOURCE, `MCP manifest cannot be read and was skipped: ${(error as Error).message}`, { file });
    return;
  }
  try {
    doc = JSON.parse(text);
  } catch (error) {
    opts.diagnostics.error(SOURCE, `MCP manifest is not valid JSON and was skipped: ${(error as Error).message}. Fix the JSON syntax.`, { file });
    return;
  }
  out.files.push(file);
  loadDocument(doc, dirname(file), origin, trusted, opts, out, add);
}

function loadDocument(
  doc: unknown,
  baseDir: string,
  origin: McpServerOrigin,
  trusted: boolean,
  opts: DiscoverOptions,
  out: DiscoveredMcp,
  add: (s: McpServerConfig) => void,
): void {
  const file = origin.file;
  if (!isObject(doc)) {
    opts.diagnostics.error(SOURCE, 'MCP manifest must be a JSON object with "mcpServers" ({name: {...}}) or "servers" ([{name, ...}]).', { file });
    return;
  }
  const entries: { name: string | undefined; raw: unknown; path: string }[] = [];
  if (doc.mcpServers !== undefined) {
    if (!isObject(doc.mcpServers)) opts.diagnostics.error(SOURCE, '"mcpServers" must be an object of {name: server}.', { file, path: "mcpServers" });
    else for (const [name, raw] of Object.entries(doc.mcpServers)) entries.push({ name, raw, path: `mcpServers.${name}` });
  }
  if (doc.servers !== undefined) {
    if (Array.isArray(doc.servers)) doc.servers.forEach((raw, i) => entries.push({ name: undefined, raw, path: `servers[${i}]` }));
    else if (isObject(doc.servers)) for (const [name, raw] of Object.entries(doc.servers)) entries.push({ name, raw, path: `servers.${name}` });
    else opts.diagnostics.error(SOURCE, '"servers" must be a list of {name, ...} objects.', { file, path: "servers" });
  }
  if (doc.mcpServers === undefined && doc.servers === undefined && doc.resources === undefined)
    opts.diagnostics.warn(SOURCE, 'MCP manifest has neither "mcpServers" nor "servers"; nothing was loaded.', { file });
  for (const e of entries) {
    const server = parseServer(e.name, e.raw, baseDir, { ...origin, path: e.path }, trusted, opts);
    if (server) add(server);
  }
  if (doc.resources !== undefined) out.resources.push(...parseResources(doc.resources, baseDir, undefined, file, "resources", opts));
}

function parseServer(
  key: string | undefined,
  raw: unknown,
  baseDir: string,
  origin: McpServerOrigin,
  trusted: boolean,
  opts: DiscoverOptions,
): McpServerConfig | undefined {
  const file = origin.file;
  const parsed = McpServerEntrySchema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues)
      opts.diagnostics.error(SOURCE, `Invalid MCP server entry (skipped): ${issue.message}.`, {
        file,
        path: [origin.path, ...issue.path.map(String)].join("."),
      });
    return undefined;
  }
  const s = parsed.data;
  const name = key ?? s.name;
  if (!name) {
    opts.diagnostics.error(SOURCE, 'Invalid MCP server entry (skipped): a server in the "servers" list needs a "name".', { file, path: origin.path });
    return undefined;
  }
  const unset: string[] = [];
  const secrets: string[] = [];
  const x = (v: string | undefined) => {
    if (v === undefined) return undefined;
    const e = expandVars(v, opts.env);
    unset.push(...e.unset);
    secrets.push(...e.secrets);
    return e.value;
  };
  const command = x(s.command);
  const args = (s.args ?? []).map((a) => x(a)!);
  const env = expandMap(s.env ?? {}, opts.env, unset, secrets);
  const cwd = x(s.cwd);
  const url = x(s.url);
  const headers = expandMap(s.headers ?? {}, opts.env, unset, secrets);
  const unsetVars = [...new Set(unset)];
  if (unsetVars.length)
    opts.diagnostics.error(
      SOURCE,
      `MCP server "${name}" uses unset environment variable${unsetVars.length > 1 ? "s" : ""} ${unsetVars.map((v) => "${" + v + "}").join(", ")} and will not be started. Export ${unsetVars.length > 1 ? "them" : "it"} or write \${${unsetVars[0]}:-default} in the manifest.`,
      { file, path: origin.path },
    );
  return {
    name,
    transport: normalizeTransport(s.type ?? s.transport, s.url),
    command,
    args,
    env,
    // Without a `cwd`, stdio servers start in the workspace root (not wherever the keel process happens to run).
    cwd: cwd ? resolve(baseDir, cwd) : opts.workspace.root,
    url,
    headers,
    enabled: s.enabled !== false && s.disabled !== true,
    enabledTools: s.enabledTools ?? s.enabled_tools,
    disabledTools: s.disabledTools ?? s.disabled_tools,
    startupTimeoutMs: s.startupTimeoutMs ?? s.startup_timeout_ms,
    toolTimeoutMs: s.toolTimeoutMs ?? s.tool_timeout_ms,
    lazy: s.lazy,
    sandbox: s.sandbox,
    resources: s.resources ? parseResources(s.resources, baseDir, name, file, `${origin.path}.resources`, opts) : [],
    origin,
    trustedByOrigin: trusted,
    unsetVars,
    secrets: [...new Set(secrets)],
  };
}

function parseResources(raw: unknown, baseDir: string, server: string | undefined, file: string, path: string, opts: DiscoverOptions): LocalResource[] {
  if (!Array.isArray(raw)) {
    opts.diagnostics.error(SOURCE, "`resources` must be a list of {name, text | path}.", { file, path });
    return [];
  }
  const out: LocalResource[] = [];
  raw.forEach((r, i) => {
    const parsed = LocalResourceSchema.safeParse(r);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      opts.diagnostics.error(SOURCE, `Invalid local resource (skipped): ${issue.message}.`, {
        file,
        path: [`${path}[${i}]`, ...issue.path.map(String)].join("."),
      });
      return;
    }
    const d = parsed.data;
    out.push({
      name: d.name,
      uri: d.uri ?? `keel-local://${server ?? "workspace"}/${encodeURIComponent(d.name)}`,
      description: d.description,
      mimeType: d.mimeType ?? "text/plain",
      text: d.text,
      path: d.path,
      baseDir,
      server,
      file,
    });
  });
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
