import { join } from "node:path";

/** The session key's file name under `$KEEL_HOME` (see session-seal.ts). */
export const SESSION_KEY_FILE = "session-key";

/** The folder under `$KEEL_HOME` holding MCP OAuth tokens and client registrations (see runtimes/mcp/oauth-store.ts). */
export const MCP_OAUTH_DIR = "mcp-oauth";

/**
 * keel's own secrets under `$KEEL_HOME`: the session key (whoever reads it can forge session seals),
 * the MCP OAuth tokens, and your config and MCP server files (where model endpoint headers and
 * servers' `env` tokens are written). A sandboxed process sees none of them (bwrap.ts masks them),
 * so a command a repository talked the model into running cannot print them into the conversation;
 * the model reads the config through `config_list`, which hides secret-looking values.
 */
export function keelHomeSecrets(keelHome: string): string[] {
  return [join(keelHome, SESSION_KEY_FILE), join(keelHome, MCP_OAUTH_DIR), join(keelHome, "config.json"), join(keelHome, "mcp.json")];
}
