import type { McpOAuthConfig } from "./oauth-config.js";

/** Where a server definition came from. */
export interface McpServerOrigin {
  /** Absolute path of the manifest file. */
  file: string;
  /** JSON path of the entry inside the file, e.g. `mcpServers.github`. */
  path: string;
  /** `workspace` files need trust; `user` ($KEEL_HOME) is trusted; `plugin` follows the plugin's level. */
  scope: "workspace" | "user" | "plugin";
  /** Plugin name for plugin hand-offs. */
  plugin?: string;
  /** The folder of a user-level plugin the server comes from (the files it runs outside it are checked: see `pluginServerProblem`). */
  userPluginRoot?: string;
}

/** A local resource from a manifest, resolved: inline text or an absolute path (confined at read time). */
export interface LocalResource {
  name: string;
  uri: string;
  description?: string;
  mimeType?: string;
  text?: string;
  /** Path as written (relative to the manifest's directory). */
  path?: string;
  /** Directory the path is relative to. */
  baseDir: string;
  /** Server the resource belongs to, or undefined for a top-level resource. */
  server?: string;
  file: string;
}

/** One MCP server, validated and expanded, ready for the runtime. */
export interface McpServerConfig {
  name: string;
  transport: "stdio" | "http" | "sse";
  command?: string;
  args: string[];
  env: Record<string, string>;
  /** Absolute working directory: a relative `cwd` resolves against the manifest's directory; default the workspace root. */
  cwd?: string;
  /** True when the manifest named no `cwd` (so `cwd` is the default; a server of yours in an untrusted workspace then starts elsewhere, see server-cwd.ts). */
  defaultCwd?: boolean;
  url?: string;
  headers: Record<string, string>;
  /** OAuth settings of an http/sse server (`oauth` in the manifest); absent means defaults (discovery, dynamic registration). */
  oauth?: McpOAuthConfig;
  /** False when `enabled: false` or `disabled: true`, or when Claude Code settings' `disabledMcpjsonServers` names the server (see `disabledBy`). */
  enabled: boolean;
  /** The `.claude/settings*.json` whose `disabledMcpjsonServers` turned this workspace server off. */
  disabledBy?: string;
  /** Set when `disabledBy` could not be read (its error): the server is held back because that file's `disabledMcpjsonServers` is unknown. */
  disabledUnread?: string;
  enabledTools?: string[];
  disabledTools?: string[];
  startupTimeoutMs?: number;
  toolTimeoutMs?: number;
  lazy?: boolean;
  /** stdio only: run the server under keel's OS sandbox (bubblewrap), with the configured `sandbox` settings (workspace-write when the sandbox is off). */
  sandbox?: boolean;
  resources: LocalResource[];
  origin: McpServerOrigin;
  /**
   * The entry's fields that decide what runs and what it receives, as written (before `${VAR}`
   * expansion): command, args, env, cwd, url, headers, oauth, sandbox, tool filters. Part of a
   * workspace server's trust pin, so pointing a variable at another secret or dropping `sandbox` is a change.
   */
  declared?: unknown;
  /** True for user-level servers and user-level plugins; workspace servers follow `host.trusted`. */
  trustedByOrigin: boolean;
  /** Variables used without default that were unset: the server must not start. */
  unsetVars: string[];
  /**
   * Values `${VAR}` expansion put into `command`, `args`, `env`, `cwd`, `url` or `headers` (see
   * `Expansion.secrets`). The expanded fields hold them only for spawning and connecting: every
   * text keel writes or prints about the server goes through `redactSecrets` with this list.
   */
  secrets: string[];
  /**
   * The credentials among them (as expanded: headers and variables named like one, a URL's password, a
   * `--token` argument, values shaped like one; the OAuth client secret, private key and ID token): hidden
   * from every tool result once the server is trusted (`host.resultSecrets`), while `secrets` also holds
   * values such as a port or a project id that only keel's own text about the server hides.
   */
  credentials?: string[];
}
