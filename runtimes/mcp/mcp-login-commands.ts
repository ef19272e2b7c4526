import { disabledWhere } from "./claude-disabled-servers.js";
import { execa } from "execa";
import type { CliContext } from "../../core/cli/index.js";
import { type Host, UsageError, errorMessage, requireSystemProgram, systemEnv, urlForDisplay } from "../../core/index.js";
import { MCP_AUTH_SERVICE, MCP_SERVICE } from "./index.js";
import { LOGIN_TIMEOUT_MS } from "./loopback-callback.js";
import type { McpAuth } from "./mcp-auth.js";
import type { McpConnection } from "./mcp-connection.js";
import { normalizeUrl } from "./oauth-store.js";

/**
 * `keel mcp login NAME [--no-browser] [--timeout SECONDS]`: the OAuth authorization-code flow for an HTTP/SSE server.
 * keel listens on a loopback port (`http://127.0.0.1:<port>/callback`), always prints the
 * authorization URL on stderr and opens it in a browser when there is one (a desktop session on a
 * TTY, not CI); the tokens go to `$KEEL_HOME/mcp-oauth/`. A `client_credentials` server just fetches
 * its token. Exit 1 when the server still does not connect (e.g. no answer within the timeout).
 * The wait for the browser is bounded by `--timeout` only: the server's start-up timeout leaves it out (see StartDeadline).
 */
export async function mcpLoginCommand(ctx: CliContext, name: string, opts: { browser?: boolean; timeout?: string }): Promise<void> {
  const timeoutMs = opts.timeout === undefined ? LOGIN_TIMEOUT_MS : Number(opts.timeout) * 1000;
  if (!(timeoutMs > 0)) throw new UsageError(`--timeout must be a positive number of seconds, not "${opts.timeout}".`);
  await ctx.withHost(
    async (host) => {
      const { conn, auth } = requireOAuthServer(host, name);
      const useBrowser = opts.browser !== false && canOpenBrowser(ctx, host.env);
      auth.interactive(
        conn.name,
        async (url) => {
          ctx.io.stderr.write(
            `Open this URL to authorize keel with MCP server "${conn.name}":\n\n  ${url.href}\n\nWaiting for the browser to come back to keel…\n`,
          );
          if (useBrowser) await openBrowser(url, host.env, host.workspace.root).catch(() => undefined);
        },
        timeoutMs,
      );
      await host.service(MCP_SERVICE)!.restart(conn, ctx.signal);
      const ok = conn.state === "connected";
      const value = {
        server: conn.name,
        url: urlForDisplay(conn.config.url!),
        state: conn.state,
        tools: conn.tools.length,
        lastError: ok ? null : (conn.lastError ?? null),
      };
      ctx.print(value, () =>
        ok
          ? `Logged in to ${conn.name}: connected, ${conn.tools.length} tool${conn.tools.length === 1 ? "" : "s"}. Tokens are kept in ${auth.store.fileFor(conn.config.url!)} (readable only by you).`
          : `Login to ${conn.name} did not complete: ${conn.redact(conn.lastError ?? "the server did not connect")}`,
      );
      if (!ok) ctx.setExitCode(1);
    },
    { startServers: false },
  );
}

/** `keel mcp logout NAME`: deletes the server's stored tokens and client registration and says what was removed. */
export async function mcpLogoutCommand(ctx: CliContext, name: string): Promise<void> {
  await ctx.withHost(
    async (host) => {
      const { conn, auth } = requireOAuthServer(host, name, false);
      // Tokens are kept per URL: an untrusted server sharing a trusted one's URL must not delete that one's login.
      const manager = host.service(MCP_SERVICE)!;
      const owner = manager.isTrusted(conn)
        ? undefined
        : manager.connections.find((c) => c !== conn && c.config.url && normalizeUrl(c.config.url) === normalizeUrl(conn.config.url!) && manager.isTrusted(c));
      if (owner)
        throw new UsageError(
          `MCP server "${conn.name}" (${conn.config.origin.file}) is not trusted and has the URL of your server "${owner.name}" (${owner.config.origin.file}); logging it out would remove ${owner.name}'s login. To do that, run \`keel mcp logout ${owner.name}\`.`,
        );
      const file = auth.store.fileFor(conn.config.url!);
      const removed = await auth.store.remove(conn.config.url!);
      const what = [removed.tokens && "tokens", removed.client && "client registration"].filter(Boolean).join(" and ");
      ctx.print({ server: conn.name, url: urlForDisplay(conn.config.url!), removed: { ...removed, file } }, () =>
        what ? `Logged out of ${conn.name}: removed its ${what} (${file}).` : `Nothing stored for ${conn.name}; it was not logged in.`,
      );
    },
    { startServers: false },
  );
}

function requireOAuthServer(host: Host, name: string, needTrust = true): { conn: McpConnection; auth: McpAuth } {
  const manager = host.service(MCP_SERVICE);
  const auth = host.service(MCP_AUTH_SERVICE);
  const conn = manager?.find(name);
  if (!manager || !auth || !conn)
    throw new UsageError(
      `Unknown MCP server "${name}". Known servers: ${manager?.connections.map((c) => c.name).join(", ") || "none"}. Run \`keel mcp list\`.`,
    );
  if (conn.config.transport === "stdio") throw new UsageError(`MCP server "${conn.name}" runs as a local command (stdio); only http and sse servers log in.`);
  // An untrusted workspace's server never receives anything: not a login, not a client secret.
  if (needTrust && !manager.isTrusted(conn)) throw new UsageError(manager.untrustedReason(conn));
  if (needTrust && !conn.config.enabled) throw new UsageError(`MCP server "${conn.name}" is disabled in ${disabledWhere(conn.config)}; enable it first.`);
  return { conn, auth };
}

/** True when a browser can be shown: an interactive terminal with a desktop (macOS, Windows, or DISPLAY/WAYLAND_DISPLAY), never in CI. */
function canOpenBrowser(ctx: CliContext, env: NodeJS.ProcessEnv): boolean {
  if (!ctx.io.interactive || env.CI || env.KEEL_NO_BROWSER) return false;
  return process.platform === "darwin" || process.platform === "win32" || Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

async function openBrowser(url: URL, env: NodeJS.ProcessEnv, root: string): Promise<void> {
  const [file, args] =
    process.platform === "darwin"
      ? ["open", [url.href]]
      : process.platform === "win32"
        ? ["rundll32", ["url.dll,FileProtocolHandler", url.href]]
        : ["xdg-open", [url.href]];
  try {
    // The opener runs unsandboxed: never one a sandboxed command wrote in the workspace, nor a helper it looks up
    // (xdg-open's gio, x-www-browser: systemProgram, systemEnv). On Windows,
    // rundll32 gets the URL as one argument: `cmd /c start` would read the & every authorization URL holds as a command separator.
    await execa(requireSystemProgram(file, env, [root], "Opening a browser"), args as string[], {
      env: systemEnv(env, [root]),
      extendEnv: false,
      stdio: "ignore",
      detached: true,
      timeout: 10_000,
    });
  } catch (error) {
    throw new Error(`could not open a browser (${errorMessage(error)})`, { cause: error });
  }
}
