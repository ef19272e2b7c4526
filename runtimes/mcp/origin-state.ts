import { createHash } from "node:crypto";
import { join } from "node:path";
import type { McpServerConfig } from "../../manifests/mcp/mcp-server-config.js";
import type { HealthStore, ServerHealth } from "./server-health.js";
import type { McpToolInfo, ToolCache } from "./tool-cache.js";

/** What the MCP runtime needs of a tool cache (one file or several). */
export type ToolListCache = Pick<ToolCache, "get" | "entry" | "put" | "flush">;

/**
 * Where the tool lists of a workspace's servers are cached, by who configured the server. Servers
 * the user configured (`$KEEL_HOME/mcp.json`, user-level plugins) are cached under `$KEEL_HOME`,
 * one file per workspace; servers the workspace's own manifests define, in its `.keel/`. A
 * repository can commit its `.keel/`, and a server's fingerprint can be computed from a guessed
 * config (secrets are redacted from it), so a cache there could otherwise put the repository's
 * text — tool descriptions, server instructions, output schemas — in the mouth of the user's own
 * servers. For the workspace's own servers it can say nothing their manifest could not.
 */
export class ToolCaches implements ToolListCache {
  constructor(
    private readonly workspace: ToolListCache,
    private readonly user: ToolListCache,
  ) {}

  get(server: McpServerConfig, opts?: { maxAgeMs?: number; now?: number }): Promise<McpToolInfo[] | undefined> {
    return this.of(server).get(server, opts);
  }

  entry(server: McpServerConfig, opts?: { maxAgeMs?: number; now?: number }): Promise<{ tools: McpToolInfo[]; instructions?: string } | undefined> {
    return this.of(server).entry(server, opts);
  }

  put(server: McpServerConfig, tools: McpToolInfo[], instructions?: string): Promise<void> {
    return this.of(server).put(server, tools, instructions);
  }

  async flush(): Promise<void> {
    await Promise.all([this.workspace.flush(), this.user.flush()]);
  }

  private of(server: McpServerConfig): ToolListCache {
    return server.trustedByOrigin ? this.user : this.workspace;
  }
}

/** What the MCP runtime needs of a health store (one file or several). */
export type ServerHealthStore = Pick<HealthStore, "get" | "recordFailure" | "reset">;

/**
 * Where servers' failure records (the breaker, the start-up back-off, the last error shown) are
 * kept, by who configured the server, as for the tool cache: a record committed in the
 * repository's `.keel/` could otherwise keep the user's own server from starting in that workspace
 * and show text of the repository's as its last error. `isUser(name)`: the server named so is one
 * the user configured.
 */
export class HealthStores implements ServerHealthStore {
  constructor(
    private readonly workspace: ServerHealthStore,
    private readonly user: ServerHealthStore,
    private readonly isUser: (name: string) => boolean,
  ) {}

  get(name: string): Promise<ServerHealth> {
    return this.of(name).get(name);
  }

  recordFailure(name: string, error: string, stderrTail?: string, now?: number, startupTimeout?: boolean): Promise<ServerHealth> {
    return this.of(name).recordFailure(name, error, stderrTail, now, startupTimeout);
  }

  reset(name: string): Promise<void> {
    return this.of(name).reset(name);
  }

  private of(name: string): ServerHealthStore {
    return this.isUser(name) ? this.user : this.workspace;
  }
}

/** A state file under `$KEEL_HOME` (`state/mcp/<kind>/<hash of the workspace root>.json`) about the user's servers in the workspace at `root`. */
export function userServerStateFile(keelHome: string, root: string, kind: "tool-cache" | "health"): string {
  const key = createHash("sha256").update(root).digest("hex").slice(0, 16);
  return join(keelHome, "state", "mcp", kind, `${key}.json`);
}
