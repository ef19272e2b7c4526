import type { Host, ToolDefinition } from "../../core/index.js";
import type { DiscoveredMcp } from "../../manifests/mcp/discover-mcp-servers.js";
import type { LocalResource } from "../../manifests/mcp/mcp-server-config.js";
import type { ConnectionDeps } from "./connection-deps.js";
import { McpConnection } from "./mcp-connection.js";
import { loginCommand } from "./oauth-provider.js";
import { serverInstructionsSection } from "./server-instructions.js";
import { serverStatus, type McpServerStatus } from "./server-status.js";
import { approveServers, untrustedReason } from "./server-trust.js";
import { filterTools, requiresTasks, serverToolDefinition } from "./server-tools.js";
import { servesName, startModes, type StartMode } from "./start-modes.js";
import { watchStarts } from "./start-progress.js";
import { TOOL_CACHE_MAX_AGE_MS } from "./tool-cache.js";
import { assignToolNames } from "./tool-names.js";

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
  private readonly approved: Map<McpConnection, boolean>;
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
    this.approved = approveServers(host, this.connections);
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
    return untrustedReason(this.host, conn);
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
    const plan = await startModes(this.host, this.connections, (c) => this.cacheDeps.cache.get(c.config));
    const starts: Promise<void>[] = [];
    // The servers this command waits for (not those registered from a cache or started in the background).
    const waiting = new Set<McpConnection>();
    for (const conn of this.connections) {
      if (!conn.config.enabled) conn.state = "disabled";
      else if (conn.config.unsetVars.length) {
        conn.state = "failed";
        conn.lastError = `unset environment variable ${conn.config.unsetVars.map((v) => "${" + v + "}").join(", ")}; the server was not started`;
      } else if (!this.isTrusted(conn)) conn.state = "untrusted";
      else starts.push(this.startOne(conn, plan.mode(conn), waiting, signal));
    }
    const stopWatching = watchStarts(waiting, this.host.options.progress);
    await Promise.all(starts).finally(stopWatching);
    const defs = this.definitions(this.connections, () => false);
    for (const def of defs) this.host.registry.register(def);
    this.registered = true;
    // The cached lists named another owner than the servers' own lists: start the others too (each re-syncs when its list differs).
    const unsure = plan.unsure && !this.host.registry.has(plan.unsure.tool) ? plan.unsure.servers.filter((c) => c.state === "lazy") : [];
    await Promise.all(unsure.map((c) => c.start(signal)));
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

  /**
   * Why `name` (an `mcp__SERVER__…` name) has no tool: the servers it may belong to (see `servesName`: a
   * name cut to 64 characters or a server name holding `__` fits several) that await a login, failed or
   * are untrusted, each with its reason; a server that is up and lists its tools does not have it. Else undefined.
   */
  explainUnknown(name: string): string | undefined {
    const reasons = this.connections.filter((c) => servesName(c.name, name)).flatMap((c) => this.unavailableReason(c) ?? []);
    if (reasons.length <= 1) return reasons[0];
    return `"${name}" may belong to any of ${reasons.length} MCP servers whose tools are not listed: ${reasons.join(" ")}`;
  }

  /** Why a server's tools are not registered: it awaits a login, failed or is untrusted; undefined otherwise. */
  private unavailableReason(conn: McpConnection): string | undefined {
    if (conn.state === "needs_login") return `MCP server "${conn.name}" needs a login before its tools are listed: run \`${loginCommand(conn.name)}\`.`;
    if (conn.state === "untrusted") return this.untrustedReason(conn);
    if (conn.state === "failed")
      return `MCP server "${conn.name}" did not start (${conn.lastError ?? "no error recorded"}): run \`keel mcp doctor ${conn.name}\`.`;
    return undefined;
  }

  /** Restarts a server: clears its breaker and failure record, reconnects, re-syncs its tools. */
  async restart(conn: McpConnection, signal?: AbortSignal): Promise<void> {
    await conn.restart(signal);
    if (conn.state === "connected") this.syncServer(conn);
  }

  /** Status rows for `keel mcp list`. */
  status(): McpServerStatus[] {
    return this.connections.map((c) => serverStatus(this.host, c));
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
