import { disabledWhere } from "./claude-disabled-servers.js";
import { type CliContext, table } from "../../core/cli/index.js";
import { ASK_USER_TO_TRUST, didYouMean, formatDiagnostic, type Host, inToolProcess, redactDeep, redactSecrets, UsageError } from "../../core/index.js";
import { MCP_SERVICE } from "./index.js";
import type { McpConnection } from "./mcp-connection.js";
import type { McpManager } from "./mcp-manager.js";
import type { McpServerStatus } from "./server-status.js";

/** Where `keel mcp list` cuts a cell (the whole error follows the table). */
const LAST_ERROR_WIDTH = 80;

/** A server's own text on keel's lines: every line after the first indented, so none can pass for a line keel printed. */
function indentLines(text: string, indent = "  "): string {
  return text.split("\n").join(`\n${indent}`);
}

/** `keel mcp [list]`: every server with transport, source, state, tool count, start-up time and last error. Exit 1 when a server failed. */
export async function mcpListCommand(ctx: CliContext): Promise<void> {
  await ctx.withHost(
    async (host) => {
      const manager = host.service(MCP_SERVICE);
      const servers = manager?.status() ?? [];
      const diagnostics = host.diagnostics.items.filter((d) => d.source === "mcp");
      print(ctx, manager, { servers: servers.map(({ stderrTail: _tail, ...row }) => row), diagnostics }, () => {
        if (!servers.length) return noServers(diagnostics.map(formatDiagnostic));
        const rows = servers.map((s) => [
          s.name,
          s.transport,
          s.state,
          String(s.tools),
          s.startupMs === null ? "-" : `${s.startupMs} ms`,
          s.sandboxed ? `yes (${s.sandboxed === "server" ? "sandbox: true" : "workspace"})` : s.sandboxed === false ? "no" : "-",
          s.source,
          s.lastError ?? "",
        ]);
        let out = table(["NAME", "TRANSPORT", "STATE", "TOOLS", "STARTUP", "SANDBOXED", "SOURCE", "LAST ERROR"], rows, LAST_ERROR_WIDTH);
        if (servers.some((s) => s.state === "untrusted"))
          out += `\n\nUntrusted servers come from this workspace's manifests and were not started: ${inToolProcess(host.env) ? `run \`keel trust\`${ASK_USER_TO_TRUST}` : "run with --trust, set KEEL_TRUST=1, or run `keel trust`"}.`;
        for (const s of servers.filter((s) => s.state === "needs_login")) out += `\n\n${s.name} needs a login: ${s.hint}.`;
        for (const s of servers.filter((s) => s.state !== "needs_login" && s.hint)) out += `\n\n${s.name}: ${s.hint}.`;
        // The table cuts a cell at 80 characters and folds its lines: an error it cut is shown whole (indented, so a server's own lines cannot pass for keel's).
        for (const s of servers.filter((s) => s.lastError && (s.lastError.length > LAST_ERROR_WIDTH || /\n/.test(s.lastError))))
          out += `\n\n${s.name}: ${indentLines(s.lastError!)}`;
        if (diagnostics.length) out += "\n\n" + diagnostics.map(formatDiagnostic).join("\n");
        return out;
      });
      // A server that failed to start (or a manifest error) is a failure of what was asked for; untrusted, disabled and lazy are not.
      if (servers.some((s) => s.state === "failed") || diagnostics.some((d) => d.severity === "error")) ctx.setExitCode(1);
    },
    { startServers: true },
  );
}

/** `keel mcp doctor [NAME]`: starts the servers (lazy ones too), times each start-up step, prints stderr tails and hints. Exit 1 when one fails. */
export async function mcpDoctorCommand(ctx: CliContext, name?: string): Promise<void> {
  await ctx.withHost(
    async (host) => {
      const manager = requireManager(host);
      const conns = name ? [requireServer(manager, name)] : manager.connections;
      await Promise.all(conns.filter((c) => c.state === "lazy" || c.state === "idle").map((c) => c.start(ctx.signal)));
      const byName = new Map(manager.status().map((s) => [s.name, s]));
      const reports = conns.map((c) => ({
        ...byName.get(c.name)!,
        protocolErrors: c.protocolErrors,
        hint: hintFor(c, byName.get(c.name)!, inToolProcess(host.env)),
      }));
      print(ctx, manager, { servers: reports }, () =>
        reports
          .map((r) => {
            const t = r.timings;
            const ms = (v?: number) => (v === undefined ? "-" : `${Math.round(v)} ms`);
            const lines = [
              `${r.state === "connected" ? "✓" : "✗"} ${r.name} (${r.transport}, ${r.scope}) — ${r.state}`,
              `  source: ${r.source}`,
              `  spawn ${ms(t.spawnMs)} · initialize ${ms(t.initializeMs)} · tools/list ${ms(t.listToolsMs)} · total ${ms(t.totalMs)} · ${r.tools} tools`,
            ];
            // the server's own words may hold newlines: indented, they cannot pass for another server's report
            if (r.lastError) lines.push(`  error: ${indentLines(r.lastError, "    ")}`);
            if (r.stderrTail) lines.push("  stderr (last lines):", ...r.stderrTail.split("\n").map((l) => `    ${l}`));
            if (r.hint) lines.push(`  hint: ${r.hint}`);
            return lines.join("\n");
          })
          .join("\n\n"),
      );
      if (reports.some((r) => r.state === "failed")) ctx.setExitCode(1);
    },
    { startServers: true },
  );
}

/** `keel mcp restart NAME`: clears the breaker and failure record, starts the server again. Exit 1 when it still fails. */
export async function mcpRestartCommand(ctx: CliContext, name: string): Promise<void> {
  await ctx.withHost(
    async (host) => {
      const manager = requireManager(host);
      const conn = requireServer(manager, name);
      if (!conn.config.enabled) throw new UsageError(`MCP server "${conn.name}" is disabled in ${disabledWhere(conn.config)}; enable it first.`);
      if (!manager.isTrusted(conn)) throw new UsageError(manager.untrustedReason(conn));
      await manager.restart(conn, ctx.signal);
      const status = manager.status().find((s) => s.name === conn.name)!;
      print(ctx, manager, { server: { ...status } }, () =>
        status.state === "connected"
          ? `Restarted ${status.name}: connected in ${status.startupMs} ms, ${status.tools} tools.`
          : `Restart of ${status.name} failed: ${indentLines(status.lastError ?? "")}${status.stderrTail ? `\nstderr (last lines):\n  ${indentLines(status.stderrTail)}` : ""}`,
      );
      if (status.state !== "connected") ctx.setExitCode(1);
    },
    { startServers: true },
  );
}

/** Prints like `ctx.print`, with every server's secrets redacted from the JSON value and the text (the last net: rows are redacted at their source too). */
function print(ctx: CliContext, manager: McpManager | undefined, value: unknown, human: () => string): void {
  const secrets = manager?.secrets ?? [];
  ctx.print(redactDeep(value, secrets), () => redactSecrets(human(), secrets));
}

function requireManager(host: Host): McpManager {
  const manager = host.service(MCP_SERVICE);
  if (!manager) throw new UsageError(noServers(host.diagnostics.items.filter((d) => d.source === "mcp").map(formatDiagnostic)));
  return manager;
}

function requireServer(manager: McpManager, name: string): McpConnection {
  const conn = manager.find(name);
  if (!conn)
    throw new UsageError(
      `Unknown MCP server "${name}".${didYouMean(
        name,
        manager.connections.map((c) => c.name),
      )} Known servers: ${manager.connections.map((c) => c.name).join(", ")}. Run \`keel mcp list\`.`,
    );
  return conn;
}

function noServers(diagnostics: string[]): string {
  return [
    'No MCP servers configured. Add .mcp.json ({"mcpServers": {"name": {"command": "..."}}}) to the workspace or $KEEL_HOME/mcp.json.',
    ...diagnostics,
  ].join("\n");
}

/** A next step for a failed server, from its error and stderr. */
export function hintFor(conn: McpConnection, s: McpServerStatus, marked = false): string | undefined {
  const err = s.lastError ?? "";
  if (s.state === "needs_login" || s.hint) return s.hint;
  if (s.state === "untrusted")
    return `defined in this workspace and not trusted: ${marked ? `run \`keel trust\`${ASK_USER_TO_TRUST}` : "re-run with --trust, set KEEL_TRUST=1, or run `keel trust`"}.`;
  if (s.state === "disabled") return `disabled in ${disabledWhere(conn.config)}.`;
  if (/unset environment variable/.test(err)) return "export the variable before starting keel, or give it a default: ${VAR:-default}.";
  if (/command not found/.test(err)) return `"${conn.config.command}" is not on PATH: install it or use an absolute path in "command".`;
  if (/keel skips it until/.test(err))
    return `it hung in start-up last time, so keel skips it for a few minutes: fix the cause, then \`keel mcp restart ${conn.name}\`.`;
  if (/switched off/.test(err)) return `the breaker is open after repeated crashes: fix the cause, then \`keel mcp restart ${conn.name}\`.`;
  // Before the protocol errors: an HTTP transport reports a failed request through the same channel.
  if (/through the proxy /.test(err))
    return 'the proxy did not get keel through: check that it is up and accepts your credentials (HTTPS_PROXY/HTTP_PROXY), or list the host in NO_PROXY if it is reached without the proxy; then check "url".';
  if (conn.protocolErrors > 0)
    return "the server printed lines on stdout that are not JSON-RPC: an MCP stdio server must write only protocol messages to stdout and log to stderr.";
  if (/start-up within/.test(err))
    return `no answer to initialize within ${conn.startupTimeoutMs} ms: check that the command starts an MCP server (not a CLI waiting for input), or raise "startupTimeoutMs".`;
  if (/exited/.test(err)) return "the server process exited: read its stderr above (missing dependency, bad arguments, missing credentials).";
  if (/Protected resource .* does not match/i.test(err))
    return "the server's protected-resource metadata names another resource, so keel refused to authorize (RFC 8707): check `url`, or tell the server's operator.";
  if (/invalid_client|unauthorized_client/i.test(err))
    return (
      "the authorization server rejected the client: check `oauth.clientId` and the secret's environment variable, or run `keel mcp logout " +
      conn.name +
      "` and log in again."
    );
  if (/ECONNREFUSED|fetch failed/i.test(err)) return 'nothing is listening at the URL: start the HTTP server or fix "url".';
  return undefined;
}
