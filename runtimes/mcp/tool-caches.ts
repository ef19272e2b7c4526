import { createHash } from "node:crypto";
import { join } from "node:path";
import type { McpServerConfig } from "../../manifests/mcp/mcp-server-config.js";
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

/** The file under `$KEEL_HOME` caching the user's servers' tool lists for the workspace at `root`. */
export function userToolCacheFile(keelHome: string, root: string): string {
  const key = createHash("sha256").update(root).digest("hex").slice(0, 16);
  return join(keelHome, "state", "mcp", "tool-cache", `${key}.json`);
}
