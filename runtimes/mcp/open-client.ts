import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { CALL_MARK, callMarkValue, errorMessage, MAX_TIMER_MS, newCallMark, systemEnv, systemProgram } from "../../core/index.js";
import type { McpServerConfig } from "../../manifests/mcp/mcp-server-config.js";
import type { McpAuthSession } from "./mcp-auth.js";
import { SANDBOX_CACHE_ENV } from "./server-sandbox.js";
import { StartDeadline } from "./start-deadline.js";
import { deliverProgressFirst } from "./progress-first.js";
import type { StderrRing } from "./stderr-ring.js";

/** Name and version keel announces in `initialize`. */
export const CLIENT_INFO = { name: "keel", version: "0.1.0" };

/** Supplies OAuth (the SDK provider and the fetch to use) for an HTTP/SSE server; undefined: no OAuth. Time a login waits for the user goes outside `deadline`. */
export type AuthProviderFactory = (server: McpServerConfig, deadline?: StartDeadline) => Promise<McpAuthSession | undefined>;

/** Inputs to open one client connection. */
export interface OpenClientOptions {
  server: McpServerConfig;
  stderr: StderrRing;
  /** The host's environment: stdio children inherit only its safe variables (PATH, HOME, …), never `process.env`'s. */
  hostEnv: NodeJS.ProcessEnv;
  /** Startup timeout for spawn + initialize (time a login waits for the browser is not counted). */
  timeoutMs: number;
  signal?: AbortSignal;
  authProvider?: AuthProviderFactory;
  /** JSON Schema validator for the SDK client (keel's; the SDK would build an ajv instance per client). */
  jsonSchemaValidator?: jsonSchemaValidator;
  /** The host's fetch (its proxy honoured) for an HTTP/SSE server without OAuth (an OAuth session brings its own, built on it). */
  fetch?: FetchLike;
  /** Installs request/notification handlers on a fresh client before it connects. */
  setup(client: Client): void;
  /** Wraps a stdio server's command line in the OS sandbox (for servers with `sandbox: true`, which a workspace server gets while `sandbox.workspaceCommands` is on); throws when the sandbox cannot run. */
  sandbox?: (argv: string[], cwd: string, env: Record<string, string>) => Promise<{ file: string; args: string[]; env?: Record<string, string> }>;
  /** Folders a sandboxed command may have written (the workspace): an unsandboxed stdio server's program is never looked up there (see systemProgram). */
  writable: readonly string[];
  /** Told the child's pid as soon as a stdio server is spawned (even if start-up then fails). */
  onSpawn?(pid: number): void;
  /** Counts lines on stdout that were not valid JSON-RPC. */
  onProtocolError(error: Error): void;
  /**
   * OAuth: told, as soon as an HTTP/SSE server's auth session exists (before the first request), how to read the
   * access and refresh tokens it sends (they change on a refresh), so an error that quotes them while the connection
   * is still starting is redacted like one after it connected.
   */
  onAuthTokens?(tokens: () => string[]): void;
}

/** A connected client, its transport and the time each start-up step took. */
export interface OpenedClient {
  client: Client;
  transport: Transport;
  /** Actual transport used (`http` may fall back to `sse`). */
  transportKind: "stdio" | "http" | "sse";
  pid?: number;
  /** OAuth: scopes the next login must add (a tool asked for more than the token was granted). */
  pendingScope?: string;
  spawnMs: number;
  initializeMs: number;
}

/**
 * Starts the transport and runs `initialize`, timing each step. stdio children get the SDK's
 * safe default environment plus the manifest's `env` and a piped stderr kept in the ring;
 * `http` uses streamable HTTP and falls back to SSE when the server rejects it with 4xx.
 * Throws on failure or timeout (the transport is closed first). Loads the SDK lazily.
 */
export async function openClient(o: OpenClientOptions): Promise<OpenedClient> {
  const s = o.server;
  if (s.transport === "stdio") return connectWith(o, "stdio", new StartDeadline(o.timeoutMs), await stdioTransport(o));
  try {
    const deadline = new StartDeadline(o.timeoutMs);
    return await connectWith(o, s.transport, deadline, ...(await httpTransport(o, s.transport, deadline)));
  } catch (error) {
    if (s.transport !== "http" || !(await looksLikeSseOnly(error)) || o.signal?.aborted) throw error;
    o.stderr.push(`[keel] streamable HTTP failed (${errorMessage(error)}); retrying with SSE\n`);
    const deadline = new StartDeadline(o.timeoutMs);
    return connectWith(o, "sse", deadline, ...(await httpTransport(o, "sse", deadline)));
  }
}

async function stdioTransport(o: OpenClientOptions): Promise<Transport> {
  const { DEFAULT_INHERITED_ENV_VARS, StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  const s = o.server;
  let line: { file: string; args: string[]; env?: Record<string, string> } = { file: s.command!, args: s.args };
  if (!s.sandbox) {
    const file = systemProgram(s.command!, o.hostEnv, o.writable);
    if (!file)
      throw new Error(
        `command not found: "${s.command}" is in no PATH folder outside the workspace (keel never starts a server's program from the workspace or a relative PATH entry, which a sandboxed command could have written). Install it, or name it by an absolute path in "command" (and set "PATH" in its "env" when it needs programs from there too).`,
      );
    line = { ...line, file };
  } else {
    if (!o.sandbox) throw new Error(`MCP server "${s.name}" asks for the sandbox (sandbox: true), but none is available in this host; it was not started.`);
    // The manifest's variables act inside the sandbox only (see SandboxTarget.env): never on /bin/sh and bwrap outside it, nor in their command lines.
    line = await o.sandbox([s.command!, ...s.args], s.cwd ?? process.cwd(), { ...SANDBOX_CACHE_ENV, ...s.env });
  }
  const t = new StdioClientTransport({
    command: line.file,
    args: line.args,
    // Unsandboxed, what the program starts in turn (`npx`'s `#!/usr/bin/env node`) is looked up outside the workspace too.
    // Marked as a process keel started (see CALL_MARK), as a bash call's are: a `keel trust` it runs is refused.
    env: {
      ...(s.sandbox
        ? childEnv(DEFAULT_INHERITED_ENV_VARS, o.hostEnv, line.env ?? {})
        : childEnv(DEFAULT_INHERITED_ENV_VARS, systemEnv(o.hostEnv, o.writable), s.env)),
      [CALL_MARK]: callMarkValue(o.hostEnv, newCallMark()),
    },
    cwd: s.cwd,
    stderr: "pipe",
  });
  t.stderr?.on("data", (chunk: Buffer) => o.stderr.push(chunk.toString("utf8")));
  return t;
}

/**
 * A stdio child's environment: the SDK's safe variable names taken from the host's environment
 * (the SDK itself would read `process.env`; a name the host lacks is removed, as `undefined`,
 * which spawn drops), then the manifest's `env`.
 */
export function childEnv(safe: readonly string[], hostEnv: NodeJS.ProcessEnv, own: Record<string, string>): Record<string, string> {
  const env: Record<string, string | undefined> = {};
  for (const key of safe) {
    const value = hostEnv[key];
    // Exported shell functions (`() {…}`) are skipped, as the SDK does.
    env[key] = value === undefined || value.startsWith("()") ? undefined : value;
  }
  return { ...env, ...own } as Record<string, string>;
}

async function httpTransport(o: OpenClientOptions, kind: "http" | "sse", deadline: StartDeadline): Promise<[Transport, McpAuthSession?]> {
  const s = o.server;
  const url = new URL(s.url!);
  const requestInit: RequestInit = { headers: s.headers };
  const auth = await o.authProvider?.(s, deadline);
  if (auth) o.onAuthTokens?.(() => tokenStrings(auth.provider.tokens()));
  const opts = { requestInit, authProvider: auth?.provider, fetch: auth?.fetch ?? o.fetch };
  if (kind === "sse") {
    const { SSEClientTransport } = await import("@modelcontextprotocol/sdk/client/sse.js");
    return [new SSEClientTransport(url, opts), auth];
  }
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  return [new StreamableHTTPClientTransport(url, opts), auth];
}

async function connectWith(
  o: OpenClientOptions,
  kind: OpenedClient["transportKind"],
  deadline: StartDeadline,
  transport: Transport,
  auth?: McpAuthSession,
): Promise<OpenedClient> {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const client = new Client(CLIENT_INFO, {
    // Roots are local paths, for local servers: a remote one (http/sse) is not told where the workspace lives on this machine.
    capabilities: { ...(kind === "stdio" ? { roots: { listChanged: false } } : {}), elicitation: { form: { applyDefaults: true } } },
    jsonSchemaValidator: o.jsonSchemaValidator,
  });
  o.setup(client);
  transport.onerror = (error) => o.onProtocolError(error);
  const t0 = performance.now();
  let initStart: number;
  // Captured at spawn: after a failed connect the SDK forgets the process (its pid reads null).
  let spawned: number | undefined;
  try {
    // A start cancelled before it got here (the host closing) spawns nothing.
    o.signal?.throwIfAborted();
    await deadline.race(transport.start(), "spawn", o.signal);
    spawned = (transport as { pid?: number | null }).pid ?? undefined;
    if (spawned) o.onSpawn?.(spawned);
    initStart = performance.now();
    transport.start = async () => undefined;
    // A login may wait for the browser inside initialize: then keel's deadline (which leaves that wait out) ends it, not the SDK's timer.
    if (auth?.waitsForUser) await deadline.race(client.connect(transport, { timeout: MAX_TIMER_MS, signal: o.signal }), "initialize", o.signal);
    else await client.connect(transport, { timeout: Math.max(1, deadline.remaining()), signal: o.signal });
  } catch (error) {
    // A server that failed to start gets no grace period: kill it now, and let the SDK's
    // close (which may wait seconds for a process it no longer sees) finish in the background.
    const pid = spawned ?? (transport as { pid?: number | null }).pid;
    if (pid) killQuietly(pid);
    void client.close().catch(() => undefined);
    void transport.close().catch(() => undefined);
    throw error;
  }
  deliverProgressFirst(transport);
  const done = performance.now();
  const pid = (transport as { pid?: number | null }).pid ?? undefined;
  return { client, transport, transportKind: kind, pid, pendingScope: auth?.pendingScope, spawnMs: initStart - t0, initializeMs: done - initStart };
}

/** The token strings of an OAuth provider's `tokens()` (none while it answers asynchronously: keel's own provider answers at once). */
function tokenStrings(tokens: unknown): string[] {
  if (!tokens || typeof tokens !== "object" || tokens instanceof Promise) return [];
  const t = tokens as { access_token?: unknown; refresh_token?: unknown; id_token?: unknown };
  return [t.access_token, t.refresh_token, t.id_token].filter((v): v is string => typeof v === "string");
}

async function looksLikeSseOnly(error: unknown): Promise<boolean> {
  const { StreamableHTTPError } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  if (error instanceof StreamableHTTPError)
    return error.code !== undefined && error.code >= 400 && error.code < 500 && error.code !== 401 && error.code !== 403;
  return /\b(404|405)\b/.test(errorMessage(error));
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}
