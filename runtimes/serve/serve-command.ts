import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { type CliContext, rawStream, terminalText, UsageError } from "../../core/cli/index.js";
import { type Host, parseJsonText } from "../../core/index.js";
import { type HttpEndpoint, isLoopback, serveHttp } from "./http-serve.js";
import { LiveHost } from "./live-host.js";
import { ManifestWatcher } from "./manifest-watcher.js";
import { ServeHub } from "./serve-hub.js";
import { createServeSession, loadServerSdk } from "./serve-session.js";
import { toolFilter } from "./served-tools.js";

/** Options of `keel mcp serve`. */
export interface ServeCommandOptions {
  http?: boolean;
  port?: number;
  host?: string;
  /** False with `--no-auth`. */
  auth?: boolean;
  /** `--tools` globs. */
  tools?: string[];
  /** `--session-idle`: seconds without a request before an HTTP session is closed. */
  sessionIdle?: number;
  /** `--max-sessions`: live HTTP sessions at once. */
  maxSessions?: number;
}

/**
 * `keel mcp serve`: serves the host's tools, resources and prompts to MCP clients, over stdio
 * (stdout carries only the protocol; every notice goes to stderr) or, with `--http`, streamable
 * HTTP on 127.0.0.1 behind a bearer token (`KEEL_SERVE_TOKEN`, else generated and printed to
 * stderr). The host is reloaded when its manifests change. Runs until stdin ends (stdio), Ctrl-C or
 * SIGTERM (both abort `ctx.signal`). Usage errors (exit 2) for options that do not fit together.
 */
export async function mcpServeCommand(ctx: CliContext, opts: ServeCommandOptions): Promise<void> {
  const auth = opts.auth !== false;
  if (!opts.http && (opts.port !== undefined || opts.host !== undefined || opts.sessionIdle !== undefined || opts.maxSessions !== undefined || !auth))
    throw new UsageError(
      "--port, --host, --session-idle, --max-sessions and --no-auth apply to the HTTP transport only: add --http (stdio needs none of them).",
    );
  const bindHost = opts.host ?? "127.0.0.1";
  if (opts.http && !auth && !isLoopback(bindHost))
    throw new UsageError(
      `--no-auth is only allowed on a loopback address (127.0.0.1, localhost, ::1), not ${bindHost}: drop --no-auth and give clients the bearer token.`,
    );
  // Requests are answered only when addressed to the bound host (DNS rebinding): an unspecified address has no name a client can use.
  if (opts.http && ["0.0.0.0", "::", "[::]"].includes(bindHost))
    throw new UsageError(
      `--host ${bindHost} binds every interface, but keel mcp serve answers only requests addressed to the host it binds (its protection against DNS rebinding), and no client addresses ${bindHost}: pass the address clients will use (e.g. --host 192.168.1.5).`,
    );
  const envToken = ctx.io.env.KEEL_SERVE_TOKEN;
  if (opts.http && auth && envToken !== undefined && !/^[\x21-\x7e]{16,}$/.test(envToken))
    throw new UsageError(
      "KEEL_SERVE_TOKEN must be at least 16 characters of visible ASCII without spaces (an empty or short token is no lock, and a space cannot be sent): set it to e.g. the output of `openssl rand -base64 24`, or unset it to get a generated token.",
    );
  const notice = (line: string) => void ctx.io.stderr.write(terminalText(`${line}\n`));
  const stop = new AbortController();
  const onStop = () => stop.abort();
  ctx.signal.addEventListener("abort", onStop, { once: true });

  const live = new LiveHost(await ctx.openHost({ startServers: true, notice }), () => ctx.openHost({ startServers: "background", notice }), notice);
  let armed: Host = live.host;
  const watcher = new ManifestWatcher((why) => void live.reload(why));
  watcher.rearm(armed);
  live.onChange(() => {
    if (live.host !== armed) watcher.rearm((armed = live.host));
  });
  const served = toolFilter(opts.tools);
  const hub = new ServeHub(live, { served, globs: opts.tools, ...(opts.tools?.length ? { bound: served } : {}), notice, version: keelVersion() });
  for (const d of live.host.diagnostics.items.filter((d) => d.severity === "error")) notice(`keel mcp serve: ${d.source}: ${d.message}`);
  let endpoint: HttpEndpoint | undefined;
  try {
    const sdk = await loadServerSdk();
    if (opts.http) {
      const token = auth ? (envToken ?? randomBytes(24).toString("base64url")) : undefined;
      endpoint = await serveHttp(sdk, hub, {
        host: bindHost,
        port: opts.port ?? 0,
        token,
        sessionIdleSeconds: opts.sessionIdle,
        maxSessions: opts.maxSessions,
        notice,
      });
      notice(`keel mcp serve: ${hub.tools().length} tools at ${endpoint.url} (streamable HTTP)`);
      if (token && envToken === undefined) notice(`keel mcp serve: clients must send the header  Authorization: Bearer ${token}`);
      else if (!token) notice("keel mcp serve: --no-auth: any local process may call these tools.");
      await aborted(stop.signal);
    } else {
      const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
      const transport = new StdioServerTransport(ctx.io.stdin as Readable, rawStream(ctx.io.stdout) as Writable);
      const server = createServeSession(sdk, hub);
      const closed = new Promise<void>((resolve) => {
        transport.onclose = resolve;
        ctx.io.stdin.once("end", resolve);
      });
      await server.connect(transport);
      notice(`keel mcp serve: ${hub.tools().length} tools on stdio`);
      await Promise.race([closed, aborted(stop.signal)]);
      await server.close();
    }
  } finally {
    ctx.signal.removeEventListener("abort", onStop);
    watcher.stop();
    await endpoint?.close();
    await live.close();
  }
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true })));
}

/** keel's version from its package.json (the nearest one above this module named `keel`). */
function keelVersion(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dirname(dir) !== dir; dir = dirname(dir)) {
    const file = join(dir, "package.json");
    if (!existsSync(file)) continue;
    try {
      const pkg = parseJsonText(readFileSync(file, "utf8")) as { name?: string; version?: string } | null;
      if (pkg?.name === "keel" && pkg.version) return pkg.version;
    } catch {
      // not readable: keep looking
    }
  }
  return "0.0.0";
}
