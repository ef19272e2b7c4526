import { dirname, relative } from "node:path";
import type { Host, ToolDefinition } from "../../core/index.js";
import type { DiscoveredMcp } from "../../manifests/mcp/discover-mcp-servers.js";
import type { LocalResource } from "../../manifests/mcp/mcp-server-config.js";
import { McpConnection, type ConnectionDeps, type McpServerState } from "./mcp-connection.js";
import { loginCommand } from "./oauth-provider.js";
import { serverInstructionsSection } from "./server-instructions.js";
import { serverSandbox } from "./server-sandbox.js";
import { filterTools, requiresTasks, serverToolDefinition } from "./server-tools.js";
import { watchStarts } from "./start-progress.js";
import { serverIdentity, TOOL_CACHE_MAX_AGE_MS } from "./tool-cache.js";
import { assignToolNames, MAX_TOOL_NAME, sanitize } from "./tool-names.js";

/** How a server starts while the host opens: awaited, on its first call, or unawaited behind a fresh cached tool list. */
type StartMode = "now" | "deferred" | "background";

/** One row of `keel mcp list`. */
export interface McpServerStatus {
  name: string;
  transport: string;
  source: string;
  scope: string;
  state: McpServerState;
  tools: number;
  startupMs: number | null;
  lastError: string | null;
  /** stdio servers: why it runs under the OS sandbox (`server`: it asks, `sandbox: true`; `workspace`: the workspace brings it and `sandbox.workspaceCommands` is on), or false. */
  sandboxed?: "server" | "workspace" | false;
  /** The next step for the user, when there is an obvious one (e.g. `keel mcp login NAME` for `needs_login`). */
  hint?: string;
  timings: McpConnection["timings"];
  stderrTail: string;
}

/** Default start-up timeout of a server. */
export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;

/**
 * All MCP servers of one host (provided as the `"mcp"` service): decides each server's state
 * (disabled, untrusted, lazy, ...), starts the eager ones in parallel, keeps their tools in the
 * registry in sync and stops every child on shutdown.
 */
export class McpManager {
  readonly connections: McpConnection[];
  readonly localResources: LocalResource[];
  private readonly host: Host;
  /** Set once the initial registration is done; later tool-list changes re-sync the registry. */
  private registered = false;
  private readonly cacheDeps: Omit<ConnectionDeps, "host" | "onToolsChanged" | "startupTimeoutMs">;
  /** Cancels the starts nobody waits for (`startServers: "background"`) when the host closes. */
  private readonly lifetime = new AbortController();
  /** Starts in flight that no command awaited; `closeAll` waits for them to settle after cancelling them. */
  private readonly background = new Set<Promise<void>>();
  /** Workspace servers: whether the workspace's trust approves each (decided once, see Host.approves). */
  private readonly approved = new Map<McpConnection, boolean>();
  /** Server and tool pairs already reported as needing task support. */
  private readonly reportedTaskTools = new Set<string>();

  constructor(host: Host, discovered: DiscoveredMcp, deps: Omit<ConnectionDeps, "host" | "onToolsChanged" | "startupTimeoutMs">) {
    this.host = host;
    const full: ConnectionDeps = {
      ...deps,
      host,
      startupTimeoutMs: host.config.mcp?.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS,
      onToolsChanged: (conn) => this.syncServer(conn),
    };
    this.connections = discovered.servers.map((s) => new McpConnection(s, full));
    // A workspace's server runs when the workspace is trusted and the server is as `keel trust` approved it.
    for (const c of this.connections) {
      if (c.config.trustedByOrigin) continue;
      const { pinned, ...item } = trustConfig(host, c);
      const approved = host.approves(
        { kind: "mcp server", name: `"${c.name}" (${relative(host.workspace.root, c.config.origin.file)})`, ...item },
        c.config.origin.file,
      );
      this.approved.set(c, approved);
      if (approved && pinned.length) c.pinned = pinned;
    }
    this.localResources = [...discovered.resources, ...discovered.servers.flatMap((s) => s.resources)];
    this.cacheDeps = deps;
  }

  /** The connection of a server, matched case-insensitively. */
  find(name: string): McpConnection | undefined {
    return this.connections.find((c) => c.name === name) ?? this.connections.find((c) => c.name.toLowerCase() === name.toLowerCase());
  }

  /**
   * The name keel registered a server tool under (`mcp__<server>__<tool>`, possibly shortened or
   * suffixed), or undefined when it is not in the registry: filtered by `enabledTools` /
   * `disabledTools`, not listed by the server, or its name was taken.
   */
  registeredName(conn: McpConnection, tool: string): string | undefined {
    for (const t of this.host.registry.list()) if (t.source.kind === "mcp" && t.source.id === conn.name && t.metadata?.mcp_tool === tool) return t.name;
    return undefined;
  }

  /** Every server's secrets (values expanded from `${VAR}`), for text about several servers such as `keel mcp` output. */
  get secrets(): string[] {
    return [...new Set(this.connections.flatMap((c) => c.secrets))];
  }

  /** True when the workspace (or the server's origin) allows starting this server. */
  isTrusted(conn: McpConnection): boolean {
    return conn.config.trustedByOrigin || this.approved.get(conn) === true;
  }

  /** Why a server `isTrusted` refuses may not start, and what to do. */
  untrustedReason(conn: McpConnection): string {
    const file = relative(this.host.workspace.root, conn.config.origin.file);
    if (this.host.trust.unpinned)
      return `MCP server "${conn.name}" (${file}) is not approved yet: this workspace was trusted before \`keel trust\` recorded what it approves, so it was not started. Review it with \`keel trust\`, or re-run with --trust.`;
    return this.host.trusted
      ? `MCP server "${conn.name}" (${file}) was added or changed since this workspace was trusted, so it was not started: review it with \`keel trust\`, or re-run with --trust.`
      : `MCP server "${conn.name}" is defined by this untrusted workspace (${file}) and was not started: re-run with --trust, or run \`keel trust\` first.`;
  }

  /** True when the server is lazy (manifest `lazy`, else config `mcp.lazy`). */
  isLazy(conn: McpConnection): boolean {
    return conn.config.lazy ?? this.host.config.mcp?.lazy ?? false;
  }

  /**
   * Sets every server's initial state and starts the eager ones in parallel (each bounded by its
   * start-up timeout), then registers all their tools with deterministic names. With
   * `startServers: "background"` a server with a fresh cached list is registered from it and its
   * start is not awaited. Never throws.
   */
  async startAll(signal?: AbortSignal): Promise<void> {
    const modeOf = this.startModes();
    const starts: Promise<void>[] = [];
    // The servers this command waits for (not those registered from a cache or started in the background).
    const waiting = new Set<McpConnection>();
    for (const conn of this.connections) {
      if (!conn.config.enabled) conn.state = "disabled";
      else if (conn.config.unsetVars.length) {
        conn.state = "failed";
        conn.lastError = `unset environment variable ${conn.config.unsetVars.map((v) => "${" + v + "}").join(", ")}; the server was not started`;
      } else if (!this.isTrusted(conn)) conn.state = "untrusted";
      else starts.push(this.startOne(conn, modeOf(conn), waiting, signal));
    }
    const stopWatching = watchStarts(waiting, this.host.options.progress);
    await Promise.all(starts).finally(stopWatching);
    const defs = this.definitions(this.connections, () => false);
    for (const def of defs) this.host.registry.register(def);
    this.registered = true;
  }

  /** Re-registers one server's tools after its list changed and fires `toolsChanged` (no-op before the initial registration). */
  syncServer(conn: McpConnection): void {
    if (!this.registered) return;
    const before = this.host.registry
      .list()
      .filter((t) => t.source.kind === "mcp" && t.source.id === conn.name)
      .map((t) => t.name);
    this.host.registry.removeBySource("mcp", conn.name);
    const defs = this.definitions([conn], (n) => this.host.registry.has(n));
    for (const def of defs) this.host.registry.register(def);
    const after = defs.map((d) => d.name);
    const added = after.filter((n) => !before.includes(n));
    const removed = before.filter((n) => !after.includes(n));
    if (!added.length && !removed.length) return;
    try {
      this.host.hooks.toolsChanged.call({ host: this.host, source: `mcp:${conn.name}`, added, removed });
    } catch (error) {
      this.host.events.emit({ type: "hook_error", hook: "toolsChanged", message: String((error as Error)?.message ?? error) });
    }
  }

  /** The system-prompt section with the servers' `instructions` (enabled, trusted servers only; see server-instructions.ts). */
  instructionsSection(): string | undefined {
    return serverInstructionsSection(this.connections, (c) => c.config.enabled && this.isTrusted(c));
  }

  /** Restarts a server: clears its breaker and failure record, reconnects, re-syncs its tools. */
  /** Why `name` (an `mcp__SERVER__…` name) has no tool: its server awaits a login, failed or is untrusted; else undefined. */
  explainUnknown(name: string): string | undefined {
    const conn = this.connections.find((c) => name.startsWith(`mcp__${sanitize(c.name)}__`));
    if (!conn) return undefined;
    if (conn.state === "needs_login") return `MCP server "${conn.name}" needs a login before its tools are listed: run \`${loginCommand(conn.name)}\`.`;
    if (conn.state === "untrusted") return this.untrustedReason(conn);
    if (conn.state === "failed")
      return `MCP server "${conn.name}" did not start (${conn.lastError ?? "no error recorded"}): run \`keel mcp doctor ${conn.name}\`.`;
    return undefined;
  }

  async restart(conn: McpConnection, signal?: AbortSignal): Promise<void> {
    await conn.restart(signal);
    if (conn.state === "connected") this.syncServer(conn);
  }

  /** Status rows for `keel mcp list`. */
  status(): McpServerStatus[] {
    return this.connections.map((c) => ({
      name: c.name,
      transport: c.transportKind ?? c.config.transport,
      source: c.config.origin.file,
      scope: c.config.origin.plugin ? `plugin:${c.config.origin.plugin}` : c.config.origin.scope,
      state: c.state,
      tools: filterTools(c, c.tools).length,
      startupMs: c.timings.totalMs !== undefined ? Math.round(c.timings.totalMs) : null,
      lastError: c.lastError ?? null,
      ...(c.config.transport === "stdio" ? { sandboxed: serverSandbox(c.config, this.host) ?? false } : {}),
      ...(c.state === "needs_login" ? { hint: `run \`${loginCommand(c.name)}\` to authorize keel with this server` } : {}),
      // Held back in a trusted workspace (added or changed since `keel trust`): say so, not "untrusted workspace".
      ...(c.state === "untrusted" && this.host.trusted ? { hint: this.untrustedReason(c) } : {}),
      ...(c.state !== "needs_login" && c.pendingScope
        ? { hint: `a tool needs a wider authorization (scopes: ${c.pendingScope}): run \`${loginCommand(c.name)}\` again to grant it` }
        : {}),
      timings: Object.fromEntries(Object.entries(c.timings).map(([k, v]) => [k, Math.round(v * 10) / 10])),
      stderrTail: c.stderr.tail(),
    }));
  }

  /**
   * Stops every server in parallel. Starts nobody awaited are cancelled first (their children are
   * killed and nothing is recorded against the server) and settle before the cache is flushed, so
   * no write is left half done. Never throws.
   */
  async closeAll(): Promise<void> {
    this.lifetime.abort();
    await Promise.all(this.background);
    await Promise.all(this.connections.map((c) => c.close().catch(() => undefined)));
    await this.cacheDeps.cache.flush();
  }

  /**
   * How each server starts, from the host's `startServers`: all now, all in the background, none, or
   * now only those a call of one tool may need — `mcp__<server>__…` names its server; a tool already
   * registered and not by MCP (a built-in) needs none; any other name (an alias, a plugin or
   * workflow tool) may reach any server.
   */
  private startModes(): (conn: McpConnection) => StartMode {
    const opt = this.host.options.startServers ?? true;
    if (opt === "background") return () => "background";
    if (typeof opt === "boolean") return () => (opt ? "now" : "deferred");
    const { tool } = opt;
    const named = this.connections.filter((c) => servesName(c.name, tool));
    if (named.length) return (c) => (named.includes(c) ? "now" : "deferred");
    const known = this.host.registry.resolve(tool);
    if (known && !known.alias && known.tool.source.kind !== "mcp") return () => "deferred";
    return () => "now";
  }

  private async startOne(conn: McpConnection, mode: StartMode, waiting: Set<McpConnection>, signal?: AbortSignal): Promise<void> {
    const lazy = this.isLazy(conn);
    if (lazy || mode === "deferred") {
      const cached = await this.cacheDeps.cache.entry(conn.config);
      if (cached || mode === "deferred") {
        conn.tools = cached?.tools ?? [];
        conn.instructions = cached?.instructions;
        conn.state = "lazy";
        return;
      }
    } else if (mode === "background") {
      const cached = await this.cacheDeps.cache.entry(conn.config, { maxAgeMs: TOOL_CACHE_MAX_AGE_MS });
      if (cached) {
        conn.tools = cached.tools;
        conn.instructions = cached.instructions;
        this.startInBackground(conn);
        return;
      }
    }
    waiting.add(conn);
    await conn.start(signal).finally(() => waiting.delete(conn));
    if (conn.state === "failed" && !conn.tools.length) {
      const cached = await this.cacheDeps.cache.get(conn.config);
      if (cached) conn.tools = cached;
    }
  }

  /**
   * Starts a server without waiting for it. When it is up with another list, `onToolsChanged`
   * re-syncs the registry; a call of one of its tools meanwhile joins this start (`conn.ready`).
   */
  private startInBackground(conn: McpConnection): void {
    const start: Promise<void> = conn.start(this.lifetime.signal).finally(() => this.background.delete(start));
    this.background.add(start);
  }

  /** One diagnostic per server and tool for tools that need task support (not offered to the model). */
  private reportTaskTools(conn: McpConnection): void {
    for (const t of conn.tools) {
      const key = `${conn.name}\u0000${t.name}`;
      if (!requiresTasks(t) || this.reportedTaskTools.has(key)) continue;
      this.reportedTaskTools.add(key);
      this.host.diagnostics.warn(
        "mcp",
        `Tool "${t.name}" of MCP server "${conn.name}" requires task-augmented execution (execution.taskSupport: "required"), which keel does not support yet; it is not offered.`,
        { file: conn.config.origin.file, path: conn.config.origin.path },
      );
    }
  }

  private definitions(conns: McpConnection[], taken: (name: string) => boolean): ToolDefinition[] {
    for (const c of conns) this.reportTaskTools(c);
    const pairs = conns.flatMap((c) => filterTools(c, c.tools).map((t) => ({ server: c.name, tool: t.name, conn: c, info: t })));
    const byKey = new Map(pairs.map((p) => [`${p.server}\u0000${p.tool}`, p]));
    const named = assignToolNames(pairs, taken, (t, clashed, holder) => {
      const conn = this.find(t.server)!;
      const other = holder ? undefined : this.host.registry.resolve(clashed)?.tool.source;
      const by = holder
        ? `by tool "${holder.tool}" of MCP server "${holder.server}"`
        : other?.kind === "mcp"
          ? `by a tool of MCP server "${other.id}"`
          : `by a ${other?.kind ?? "registered"} tool`;
      this.host.diagnostics.warn(
        "mcp",
        `Tool "${t.tool}" of MCP server "${t.server}" would be registered as ${clashed}, which is taken ${by}; it is registered as ${t.name} instead.`,
        { file: conn.config.origin.file, path: conn.config.origin.path },
      );
    });
    return named.map((n) => {
      const p = byKey.get(`${n.server}\u0000${n.tool}`)!;
      return serverToolDefinition(this.host, p.conn, p.info, n.name);
    });
  }
}

/**
 * What a workspace server's trust pin covers: its transport, its entry as written (which variable
 * feeds each value, sandbox, oauth, tool filters) and the folder of its manifest (relative paths
 * resolve there); not the values variables expand to, which are the user's environment (a token
 * exported after `keel trust` is no change). For a stdio server, also the content of the workspace
 * files its command line runs (`node server.js`, `./bin/server`): a server rewritten since (by a
 * pull, or by a sandboxed command) waits for a review instead of running unsandboxed.
 */
function trustConfig(host: Host, c: McpConnection): { config: unknown; files?: string[]; pinned: [string, string][] } {
  const files =
    c.config.command === undefined
      ? []
      : host.namedFiles(
          [[...Object.entries(c.config.env).map(([k, v]) => `${k}=${v}`), c.config.command, ...c.config.args]],
          c.config.cwd ?? host.workspace.root,
        );
  const pinned =
    c.config.declared === undefined
      ? serverIdentity(c.config)
      : [c.config.transport, c.config.declared, relative(host.workspace.root, dirname(c.config.origin.file))];
  // A line naming no workspace file keeps the pin it had before files were pinned.
  return files.length ? { config: [pinned, files], files: files.map(([file]) => file), pinned: files } : { config: pinned, pinned: [] };
}

/** True when `tool` is named like a tool of server `server` (`mcp__<server>__…`, also when cut to 64 characters). */
function servesName(server: string, tool: string): boolean {
  const prefix = `mcp__${sanitize(server)}__`;
  // A name over 64 characters keeps its first 55 (then `_<hash>`): compare what is left of the prefix.
  return tool.startsWith(prefix.slice(0, Math.min(prefix.length, MAX_TOOL_NAME - 9)));
}
