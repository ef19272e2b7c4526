import { errorMessage, McpServerError, ToolError } from "../../core/index.js";
import { cleanMcpErrorText } from "./error-text.js";
import { loginCommand, needsLogin, ScopeRequiredError } from "./oauth-provider.js";
import type { ServerHealth } from "./server-health.js";

/** What `callError` needs to know of the connection a failed call went through. */
export interface CallErrorContext {
  name: string;
  /** The server has failed or its connection is gone. */
  stopped: boolean;
  /** The last lines of the server's stderr (redacted). */
  stderrTail(): string;
  redact(text: string): string;
  /** A call was refused for want of `scope` (the next login asks for it). */
  onScopeRequired(scope: string): void;
  /** The server refused the token: the connection should close and ask for a login. */
  onTokenRefused(): void;
}

/** A connection or protocol failure as a ToolError naming the server, with its stderr tail; redacted. */
export function callError(error: unknown, c: CallErrorContext): ToolError {
  if (error instanceof ToolError) return new ToolError(c.redact(error.message), error.code, error.data, error.metadata);
  if (error instanceof ScopeRequiredError) {
    c.onScopeRequired(error.scope);
    return new ToolError(c.redact(error.message), "execution_failed", null, { server_name: c.name, required_scope: error.scope });
  }
  const code = (error as { code?: number }).code;
  const text = () => cleanMcpErrorText(errorMessage(error));
  let message: string;
  if (error instanceof McpServerError) message = error.message;
  else if (needsLogin(error)) {
    c.onTokenRefused();
    message = `MCP server "${c.name}" requires a new login (its token was refused): run \`${loginCommand(c.name)}\`.`;
  } else if (code === -32000 || c.stopped) message = `MCP server "${c.name}" stopped during the call (${text()}). The next call restarts it.`;
  else if (code === -32001)
    return new ToolError(c.redact(`MCP server "${c.name}" did not answer in time: ${text()}`), "timeout", null, { server_name: c.name });
  else if (typeof code === "number")
    // The server answered with a JSON-RPC error: its stderr is unrelated to that answer.
    return new ToolError(c.redact(`MCP server "${c.name}" returned an error: ${text()}`), "execution_failed", null, { server_name: c.name });
  else message = `MCP server "${c.name}" returned an error: ${text()}`;
  const tail = error instanceof McpServerError && error.stderrTail ? error.stderrTail : c.stderrTail();
  return new ToolError(c.redact(tail ? `${message}\nServer stderr (last lines):\n${tail}` : message), "execution_failed", null, {
    server_name: c.name,
    ...(tail ? { stderr_tail: tail } : {}),
  });
}

/** True when start-up failed because the server did not answer in time (not because it exited or was missing). */
export function isStartTimeout(error: unknown): boolean {
  return (error as { code?: number }).code === -32001 || /timed out/i.test(errorMessage(error));
}

export function describeStartError(error: unknown, timeoutMs: number): string {
  const msg = errorMessage(error);
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return `command not found (${msg}). Check \`command\` in the manifest and that it is on PATH.`;
  if (code === "EACCES") return `command is not executable (${msg}).`;
  if (isStartTimeout(error))
    return `did not finish start-up within ${timeoutMs} ms (${msg}). Raise startupTimeoutMs or check that the server speaks MCP on stdout.`;
  if (/Connection closed/i.test(msg)) return `the server exited during start-up (${msg}).`;
  if (!msg.trim()) {
    // An OAuth error response without error_description (e.g. a bare `invalid_client`) has an empty message.
    const oauth = (error as { errorCode?: unknown }).errorCode;
    return typeof oauth === "string"
      ? `the authorization server refused keel's request ("${oauth}", no description): check the server's oauth settings (clientId, its secret or key, issuer).`
      : `start-up failed with ${(error as Error | undefined)?.name ?? "an error"} and no message.`;
  }
  return msg;
}

/** Why a server in start-up backoff is skipped, and what to run. */
export function backoffError(name: string, stderrTail: string, health: ServerHealth): McpServerError {
  const until = new Date(health.backoffUntil!).toLocaleTimeString();
  return new McpServerError(
    `MCP server "${name}" did not finish start-up on its last attempt${health.lastError ? ` (${health.lastError.replace(/\.$/, "")})` : ""}; keel skips it until ${until} instead of waiting for it again. Fix the cause, then run \`keel mcp restart ${name}\`.`,
    name,
    stderrTail,
  );
}

/** Why a server whose breaker is open is switched off, and what to run. */
export function breakerError(name: string, stderrTail: string, last?: string): McpServerError {
  return new McpServerError(
    `MCP server "${name}" failed 3 times within 60 s and is switched off${last ? ` (last error: ${last.replace(/\.$/, "")})` : ""}. Fix the cause, then run \`keel mcp restart ${name}\`.`,
    name,
    stderrTail,
  );
}
