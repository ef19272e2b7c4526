import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  type CallElicitor,
  errorMessage,
  type EventSink,
  MAX_TIMER_MS,
  McpServerError,
  redactorForChangingSecrets,
  type ToolError,
  type ToolContext,
} from "../../core/index.js";
import type { McpServerConfig } from "../../manifests/mcp/mcp-server-config.js";
import { needsLogin, ScopeRequiredError } from "./oauth-provider.js";
import type { OpenedClient } from "./open-client.js";
import { CallElicitors } from "./call-elicitors.js";
import { installClientHandlers } from "./client-handlers.js";
import { closeClient } from "./close-client.js";
import { callError, describeStartError, isStartTimeout } from "./connection-errors.js";
import { listAllToolsWithin } from "./list-tools.js";
import { NotificationBudget } from "./notification-budget.js";
import { openServer } from "./open-server.js";
import { redactInstructions, redactToolInfos } from "./redact-listing.js";
import { RequestCancel } from "./request-cancel.js";
import { SentTokens } from "./sent-tokens.js";
import type { McpServerState, StartupTimings } from "./server-status.js";
import { ServerSupervisor } from "./server-supervisor.js";
import { StderrRing } from "./stderr-ring.js";
import { requestTool } from "./tool-request.js";
import type { McpToolInfo } from "./tool-cache.js";
import type { ConnectionDeps } from "./connection-deps.js";

/**
 * One long-lived connection to one MCP server, with supervision (`ServerSupervisor`): a crash fails
 * in-flight calls at once (the SDK rejects pending requests when the transport closes), marks the
 * server failed and records the failure; the next call restarts it after a backoff, unless the
 * breaker is open.
 */
export class McpConnection {
  state: McpServerState = "idle";
  lastError?: string;
  tools: McpToolInfo[] = [];
  /** The server's `instructions` from `initialize` (or from the tool cache until it starts); untrusted text. */
  instructions?: string;
  timings: StartupTimings = {};
  /** Scopes the next `keel mcp login` asks for because a tool needed more than the token has (set from the token store, or by a refused call). */
  pendingScope?: string;
  transportKind?: "stdio" | "http" | "sse";
  /** A trusted workspace's server: the workspace files its command line names, with the digests `keel trust` approved (checked again before each start). */
  pinned?: [string, string][];
  pid?: number;
  /** The child's stderr; its tail comes out redacted. */
  readonly stderr = new StderrRing((text) => this.redact(text));
  /** Lines on stdout that were not valid JSON-RPC (skipped). */
  protocolErrors = 0;
  /**
   * Per tool: whether it sent progress when asked (absent: not asked yet). Unless a caller insists,
   * keel asks a tool for progress on its first call and afterwards only if it reported some: a
   * progress token costs every call (bench/README.md) and most tools never use it.
   */
  readonly reportsProgress = new Map<string, boolean>();
  /** How many of this server's log and progress notifications become events (see `admitNotification`). */
  private readonly notifications = new NotificationBudget();
  /** Calls in flight, with the elicitor each brought: who answers this server's elicitations. */
  private readonly calls = new CallElicitors();
  private opened?: OpenedClient;
  /** OAuth: the tokens the auth session has sent (see `secrets`). */
  private readonly sentTokens = new SentTokens();
  /** Builds the redactor again only when the secrets change (a redactor costs ~0.3 ms to build). */
  private readonly redactWith = redactorForChangingSecrets();
  /** Start gates, backoff and failure records. */
  private readonly supervisor: ServerSupervisor;
  private starting?: Promise<void>;
  private closing = false;

  constructor(
    readonly config: McpServerConfig,
    private readonly deps: ConnectionDeps,
  ) {
    this.supervisor = new ServerSupervisor(config.name, deps, this);
  }

  /** Server name. */
  get name(): string {
    return this.config.name;
  }

  /**
   * This server's secrets: values expanded from `${VAR}` or written literally into its config, and every OAuth token
   * it has sent since its auth session began (before the first request: an `initialize` error may quote one; a token
   * replaced by a refresh stays a secret).
   */
  get secrets(): string[] {
    return this.sentTokens.withConfigured(this.config.secrets ?? []);
  }

  /** What tool results hide of this server's (see `McpServerConfig.credentials`), with every OAuth token it has sent. */
  get credentials(): string[] {
    return this.sentTokens.withConfigured(this.config.credentials ?? []);
  }

  /** `text` with this server's secrets (see `secrets`) replaced by `***`. */
  redact(text: string): string {
    return this.redactWith(text, this.secrets);
  }

  /**
   * Whether one more log or progress notification of this server may become an event now (a flood
   * is cut to NotificationBudget's rate); when some were refused since the last one, an `mcp_log`
   * warning on `events` says how many first.
   */
  admitNotification(events: EventSink = this.deps.host.events): boolean {
    return this.notifications.admit(this.name, events);
  }

  /** Start-up timeout for this server (manifest, then config, then 30 s). */
  get startupTimeoutMs(): number {
    // At most what a timer takes (a longer one would fire at once).
    return Math.min(this.config.startupTimeoutMs ?? this.deps.startupTimeoutMs, MAX_TIMER_MS);
  }

  /**
   * Connects and lists tools; on failure the state is `failed` with `lastError`. Never throws.
   * Concurrent calls share one attempt (the first caller's signal governs it). A start cancelled
   * through `signal` kills the child and is not a failure of the server: the state goes back to
   * `idle` and nothing is recorded in the health file.
   */
  start(signal?: AbortSignal): Promise<void> {
    if (this.state === "connected") return Promise.resolve();
    this.starting ??= this.doStart(signal).finally(() => (this.starting = undefined));
    return this.starting;
  }

  /** The connected client, (re)starting the server first when needed; throws McpServerError when it cannot. */
  async ready(signal?: AbortSignal): Promise<Client> {
    if (this.state === "connected" && this.opened) return this.opened.client;
    await this.supervisor.beforeRestart(signal);
    await this.start(signal);
    if (this.state !== "connected" || !this.opened)
      throw new McpServerError(`MCP server "${this.name}" is not available: ${this.lastError ?? "it did not start"}`, this.name, this.stderr.tail());
    return this.opened.client;
  }

  /**
   * Calls a tool and hands its result to `onResult` (in the same promise step: no extra async
   * layer per call); connection failures throw ToolError(execution_failed) naming the server with
   * the stderr tail. The pipeline ends the call at its deadline or on cancel (`call.onStop`): that
   * cancels the request at the server through a `RequestCancel`, with no per-call AbortSignal; the
   * SDK's own timeout only backs the deadline up. `call.signal` (created on first read) is used
   * only to start a server that is not connected.
   */
  callTool<T>(
    tool: string,
    args: unknown,
    call: Pick<ToolContext, "onStop" | "signal">,
    timeoutMs: number,
    onResult: (result: Record<string, unknown>) => T,
    onProgress?: (p: { progress: number; total?: number; message?: string }) => void,
    elicit?: CallElicitor,
  ): Promise<T> {
    const cancel = new RequestCancel();
    call.onStop(cancel.abort);
    // While the user may be asked something, the pipeline's deadline (which leaves that wait out) governs alone.
    const timeout = timeoutMs > 0 && !this.deps.elicit.waitsForUser && !elicit?.waitsForUser ? Math.min(timeoutMs + 1000, MAX_TIMER_MS) : MAX_TIMER_MS;
    // The common case, kept free of extra async layers.
    const request = { tool, args, cancel, timeout, onResult, onProgress, elicit };
    const toToolError = (error: unknown) => this.toToolError(error);
    if (this.state === "connected" && this.opened) return requestTool(this.opened.client, this.calls, request, toToolError);
    return this.ready(call.signal).then(
      (client) => requestTool(client, this.calls, request, toToolError),
      (error) => {
        throw this.toToolError(error);
      },
    );
  }

  /** Runs a request on the connected client (starting it if needed), mapping failures like `callTool`. */
  async withClient<T>(signal: AbortSignal, fn: (client: Client) => Promise<T>): Promise<T> {
    try {
      return await fn(await this.ready(signal));
    } catch (error) {
      if (signal.aborted) throw error;
      throw this.toToolError(error);
    }
  }

  /**
   * Re-lists the tools of a connected server (following pagination) and caches them. All pages
   * together must arrive within the start-up timeout: a server handing out cursor after cursor,
   * each page just inside the timeout, fails the listing instead of holding keel for hours.
   */
  async refreshTools(signal?: AbortSignal): Promise<McpToolInfo[]> {
    const client = this.opened?.client;
    if (!client) return this.tools;
    if (!client.getServerCapabilities()?.tools) return (this.tools = []);
    const listed = await listAllToolsWithin(client, await import("@modelcontextprotocol/sdk/types.js"), this.startupTimeoutMs, signal);
    if (listed.dropped) this.stderr.push(`[keel] skipped ${listed.dropped} tool(s) without a name in tools/list\n`);
    this.tools = redactToolInfos(listed.tools, this.secrets);
    void this.deps.cache.put(this.config, this.tools, this.instructions);
    return this.tools;
  }

  /** Stops the server (children get stdin closed, then SIGTERM, then SIGKILL; an HTTP session is ended with DELETE). Idempotent. */
  async close(): Promise<void> {
    this.closing = true;
    const opened = this.opened;
    this.opened = undefined;
    if (this.state === "connected") this.state = "idle";
    if (!opened) return;
    await closeClient(opened);
  }

  /** Forgets failures and reconnects (used by `keel mcp restart`). */
  async restart(signal?: AbortSignal): Promise<void> {
    await this.close();
    await this.supervisor.reset();
    await this.start(signal);
  }

  private async doStart(signal?: AbortSignal): Promise<void> {
    // Started late (lazy, or again after a crash): a command of this session, a sandboxed one too, may have rewritten its script.
    // A user-level plugin's server that runs a file outside the plugin another user could change does not start (checked as it starts).
    if (this.supervisor.changedPin(this.pinned) || this.supervisor.outsideFiles(this.config) || (await this.supervisor.refused())) return;
    this.closing = false;
    this.state = "connecting";
    const t0 = performance.now();
    try {
      const opened = await openServer(this.config, this.deps, this.startupTimeoutMs, signal, {
        stderr: this.stderr,
        onSpawn: (pid) => (this.pid = pid),
        onAuthTokens: (tokens) => this.sentTokens.follow(tokens),
        onProtocolError: (error) => {
          // A call refused for its scope is reported by the call, not as a protocol problem.
          if (error instanceof ScopeRequiredError) return;
          this.protocolErrors++;
          this.stderr.push(`[keel] ignored a message from the server: ${this.redact(errorMessage(error)).slice(0, 300)}\n`);
        },
        setup: (client, types) =>
          installClientHandlers(client, types, {
            host: this.deps.host,
            conn: this,
            elicitor: () => this.calls.pick(this.deps.elicit),
            watchCallsInFlight: () => this.calls.watchCallsInFlight(),
            onToolsChanged: () => this.deps.onToolsChanged(this),
          }),
      });
      this.opened = opened;
      this.instructions = redactInstructions(opened.client.getInstructions(), this.secrets);
      this.transportKind = opened.transportKind;
      this.pid = opened.pid;
      this.pendingScope = opened.pendingScope;
      opened.client.onclose = () => this.onClosed(opened);
      const tl = performance.now();
      const before = JSON.stringify(this.tools);
      await this.refreshTools(signal);
      this.timings = { spawnMs: opened.spawnMs, initializeMs: opened.initializeMs, listToolsMs: performance.now() - tl, totalMs: performance.now() - t0 };
      this.state = "connected";
      this.lastError = undefined;
      if (before !== JSON.stringify(this.tools)) this.deps.onToolsChanged(this);
    } catch (error) {
      await this.opened?.client.close().catch(() => undefined);
      this.opened = undefined;
      this.timings = { totalMs: performance.now() - t0 };
      if (signal?.aborted) {
        this.state = "idle";
        this.lastError = "start-up was cancelled before it finished";
        return;
      }
      // A server that wants a login has not failed: no breaker, no health record, other servers unaffected.
      if (needsLogin(error)) return this.supervisor.needsLogin((error as { reason?: string }).reason);
      await new Promise((r) => setImmediate(r));
      await this.supervisor.fail(describeStartError(error, this.startupTimeoutMs), isStartTimeout(error));
    }
  }

  private onClosed(opened: OpenedClient): void {
    if (this.opened !== opened) return;
    this.opened = undefined;
    if (this.closing) return;
    setImmediate(() => void this.supervisor.fail(`the server exited unexpectedly${this.stderr.tail() ? "" : " (no stderr output)"}`));
  }

  /** A connection or protocol failure as a ToolError naming the server, with its stderr tail; redacted. */
  private toToolError(error: unknown): ToolError {
    return callError(error, {
      name: this.name,
      stopped: this.state === "failed" || !this.opened,
      stderrTail: () => this.stderr.tail(10),
      redact: (text) => this.redact(text),
      onScopeRequired: (scope) => (this.pendingScope = scope),
      onTokenRefused: () => void this.close().then(() => this.supervisor.needsLogin()),
    });
  }
}
