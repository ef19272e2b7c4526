import { join } from "node:path";

/** The session key's file name under `$KEEL_HOME` (see session-seal.ts). */
export const SESSION_KEY_FILE = "session-key";

/** The folder under `$KEEL_HOME` holding MCP OAuth tokens and client registrations (see runtimes/mcp/oauth-store.ts). */
export const MCP_OAUTH_DIR = "mcp-oauth";

/**
 * keel's own secrets under `$KEEL_HOME`: the session key (whoever reads it can forge session seals)
 * and the MCP OAuth tokens. A sandboxed process sees neither (bwrap.ts masks them), so a command a
 * repository talked the model into running cannot print them into the conversation.
 */
export function keelHomeSecrets(keelHome: string): string[] {
  return [join(keelHome, SESSION_KEY_FILE), join(keelHome, MCP_OAUTH_DIR)];
}
