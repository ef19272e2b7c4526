import { inToolProcess, orTrustOnce, TRUST_ONCE } from "../../core/index.js";
import { dirname, relative } from "node:path";
import { MISSING, type Host } from "../../core/index.js";
import type { McpConnection } from "./mcp-connection.js";
import { serverIdentity } from "./tool-cache.js";
import { NON_SECRET_VARS, VAR_REFERENCE } from "../../manifests/mcp/expand-vars.js";

/**
 * Whether the workspace's trust approves each workspace server (decided once, see Host.approves;
 * servers trusted by their origin are left out). A workspace's server runs when the workspace is
 * trusted and the server is as `keel trust` approved it; an approved server with pinned files gets
 * them as `pinned` (checked again before each start). A server Claude Code settings keep off
 * (`disabledBy`: `disabledMcpjsonServers`, or a settings file keel could not read) is left out too:
 * trusting would not start it, so `keel trust` neither lists nor approves it, and once turned back
 * on it waits for the next `keel trust` like a server added since.
 */
export function approveServers(host: Host, connections: readonly McpConnection[]): Map<McpConnection, boolean> {
  const approvedBy = new Map<McpConnection, boolean>();
  for (const c of connections) {
    if (c.config.trustedByOrigin || c.config.disabledBy !== undefined) continue;
    const { pinned, ...item } = trustConfig(host, c);
    const variables = referencedVars(c.config.declared);
    const approved = host.approves(
      { kind: "mcp server", name: `"${c.name}" (${relative(host.workspace.root, c.config.origin.file)})`, ...item, ...(variables.length ? { variables } : {}) },
      c.config.origin.file,
    );
    approvedBy.set(c, approved);
    if (approved && pinned.length) c.pinned = pinned;
  }
  return approvedBy;
}

/**
 * The environment variables an entry as written references (`${VAR}`, `${VAR:-default}`), first use first, without the
 * non-secret ones (`HOME`, `PATH`, …): what `keel trust` says the server will get from your environment.
 */
function referencedVars(declared: unknown): string[] {
  const names = new Set<string>();
  for (const m of JSON.stringify(declared ?? null).matchAll(VAR_REFERENCE)) if (!NON_SECRET_VARS.has(m[1]!)) names.add(m[1]!);
  return [...names];
}

/** Why a server the workspace's trust does not approve may not start, and what to do. */
export function untrustedReason(host: Host, conn: McpConnection): string {
  const file = relative(host.workspace.root, conn.config.origin.file);
  const marked = inToolProcess(host.env);
  const once = orTrustOnce(marked, TRUST_ONCE.reRun);
  if (host.trust.unpinned)
    return `MCP server "${conn.name}" (${file}) is not approved yet: this workspace was trusted before \`keel trust\` recorded what it approves, so it was not started. Review it with \`keel trust\`${once}.`;
  return host.trusted
    ? `MCP server "${conn.name}" (${file}) was added or changed since this workspace was trusted, so it was not started: review it with \`keel trust\`${once}.`
    : `MCP server "${conn.name}" is defined by this untrusted workspace (${file}) and was not started: run \`keel trust\` first${once}.`;
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
  const absent: string[] = [];
  const files =
    c.config.command === undefined
      ? []
      : host.namedFiles(
          [[...Object.entries(c.config.env).map(([k, v]) => `${k}=${v}`), c.config.command, ...c.config.args]],
          c.config.cwd ?? host.workspace.root,
          absent,
        );
  const pinned =
    c.config.declared === undefined
      ? serverIdentity(c.config)
      : [c.config.transport, c.config.declared, relative(host.workspace.root, dirname(c.config.origin.file))];
  // A line naming no workspace file keeps the pin it had before files were pinned.
  // What a package manager would read if it were there (`.npmrc`) must still not be there when the server starts.
  const missing = absent.map((file): [string, string] => [file, MISSING]);
  return files.length ? { config: [pinned, files], files: files.map(([file]) => file), pinned: [...files, ...missing] } : { config: pinned, pinned: [] };
}
