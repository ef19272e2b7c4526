import { createHash } from "node:crypto";
import type { Host } from "../host.js";
import type { ModelSpec } from "../model/model-spec.js";
import { newSessionId } from "../session/session-paths.js";
import type { SessionMeta } from "../session/session-types.js";
import type { AgentRunOptions } from "./agent-runtime.js";

/**
 * The contract a new session freezes in `session.json`: its id, parent and depth, model, working
 * directory (`pinned` when it does not follow the active directory), permissions, and the plugins,
 * MCP servers and tool menu it started with (with fingerprints, to tell later what changed).
 */
export function newSessionMeta(host: Host, opts: AgentRunOptions, spec: ModelSpec, depth: number, pinned: boolean): SessionMeta {
  const listing = host.registry.listing();
  const servers = [...new Set(listing.filter((t) => t.source.kind === "mcp").map((t) => t.source.id))].sort();
  return {
    id: opts.sessionId ?? newSessionId(),
    createdAt: new Date().toISOString(),
    parentSessionId: opts.parentSessionId,
    depth,
    model: spec,
    cwd: opts.worktree?.path ?? opts.cwd ?? host.activeDir,
    pinnedCwd: pinned || undefined,
    permissions: host.config.permissions ?? {},
    plugins: [...host.plugins],
    pluginFingerprint: hash(host.plugins),
    servers,
    serverFingerprint: hash(servers),
    toolMenuHash: hash(listing.map((t) => [t.name, t.inputSchema])),
    worktree: opts.worktree,
    agentType: opts.agentType,
  };
}

function hash(value: unknown): string {
  return createHash("sha256").update(JSON.stringify(value)).digest("hex").slice(0, 16);
}
