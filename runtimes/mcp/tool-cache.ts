import { createHash } from "node:crypto";
import { readJsonState, redactDeep, writeJsonState } from "../../core/index.js";
import { redactInstructions, redactToolInfos } from "./redact-listing.js";
import { toolFields } from "./tool-info.js";
import type { McpServerConfig } from "../../manifests/mcp/mcp-server-config.js";

/** A tool as listed by a server (the fields keel keeps). */
export interface McpToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; openWorldHint?: boolean; title?: string };
  /** JSON Schema of `structuredContent`; keel validates results against it. */
  outputSchema?: Record<string, unknown>;
  /** `execution.taskSupport` as listed (`required` tools are not offered until keel supports tasks). */
  execution?: { taskSupport?: string };
  /** Why the SDK's tool schema rejected this definition (the tool is registered without input validation). */
  schemaProblem?: string;
}

/**
 * How old a cached tool list may be and still be served without waiting for the server
 * (`startServers: "background"`): older entries make the command start the server and wait, so a
 * server whose tools changed without a config change is re-read at least once a day. Lazy
 * servers ignore the age (they re-list their tools on first use anyway).
 */
export const TOOL_CACHE_MAX_AGE_MS = 24 * 60 * 60_000;

/** The cache file's shape. */
export interface CacheFile {
  servers: Record<string, { fingerprint: string; savedAt: string; tools: McpToolInfo[]; instructions?: string }>;
}

/**
 * Fingerprint of everything that decides what a server is: a changed manifest invalidates its
 * cache. Secrets are redacted first, so the file in `.keel/` holds no function of a secret (a
 * changed token keeps the cache; the tool list is re-read when the server starts anyway).
 */
export function configFingerprint(s: McpServerConfig): string {
  const key = JSON.stringify(serverIdentity(s));
  return createHash("sha256").update(key).digest("hex").slice(0, 16);
}

/** What identifies what a server runs or reaches: transport, command, args, env, cwd, url, headers (secret values masked). */
export function serverIdentity(s: McpServerConfig): unknown[] {
  return redactDeep([s.transport, s.command, s.args, s.env, s.cwd, s.url, s.headers], s.secrets ?? []) as unknown[];
}

/** Per-workspace cache of servers' tool lists (`.keel/state/mcp/tool-cache.json`), for lazy start. */
export class ToolCache {
  /**
   * The file as read once for this process (every server's entry comes from one read and one parse;
   * replaced by what `put` writes). A file that cannot be read or parsed reads as empty.
   */
  private loaded: Promise<CacheFile> | undefined;

  /** `ensure` runs before the first write (creates `.keel/` with its `.gitignore`); `read` reads the file (default: `readJsonState`). */
  constructor(
    private readonly file: string,
    private readonly ensure: () => void = () => undefined,
    private readonly read: (file: string) => Promise<CacheFile> = (f) => readJsonState<CacheFile>(f, { servers: {} }),
  ) {}

  /**
   * Cached tools of a server when the fingerprint matches; undefined otherwise. The file lives in
   * the repository's `.keel/` and may have been committed, so it is never evidence of safety: a
   * cached `readOnlyHint` is dropped (the tool keeps the server's default risk and asks) until the
   * server itself lists its tools again. Each tool is checked as a listed one is (`toolFields`): an
   * entry without a string name is dropped, a field of the wrong type left out. With `maxAgeMs`, an entry saved longer ago than that (or
   * with no readable `savedAt`, or one after now: a clock put back since) is treated as absent. Never throws.
   */
  async get(server: McpServerConfig, opts: { maxAgeMs?: number; now?: number } = {}): Promise<McpToolInfo[] | undefined> {
    return (await this.entry(server, opts))?.tools;
  }

  /** Like `get`, plus the server's cached `instructions` (untrusted text, like the tool descriptions). Never throws. */
  async entry(server: McpServerConfig, opts: { maxAgeMs?: number; now?: number } = {}): Promise<{ tools: McpToolInfo[]; instructions?: string } | undefined> {
    try {
      const data = await (this.loaded ??= this.read(this.file).catch((): CacheFile => ({ servers: {} })));
      const entry = data.servers?.[server.name];
      if (!entry || entry.fingerprint !== configFingerprint(server) || !Array.isArray(entry.tools)) return undefined;
      if (opts.maxAgeMs !== undefined && !fresh((opts.now ?? Date.now()) - Date.parse(entry.savedAt), opts.maxAgeMs)) return undefined;
      const tools = entry.tools.flatMap((raw: unknown) => cachedTool(raw) ?? []);
      // A file from before keel redacted listings (or written by hand) may hold the server's secrets: redacted on the way out too.
      const secrets = server.secrets ?? [];
      return {
        tools: redactToolInfos(tools, secrets),
        instructions: redactInstructions(typeof entry.instructions === "string" ? entry.instructions : undefined, secrets),
      };
    } catch {
      return undefined;
    }
  }

  private pending = new Map<string, { server: McpServerConfig; tools: McpToolInfo[]; instructions?: string }>();
  private writing: Promise<void> | undefined;

  /** Stores a server's tools under its fingerprint. Writes are coalesced (one file write for many servers). Never throws. */
  put(server: McpServerConfig, tools: McpToolInfo[], instructions?: string): Promise<void> {
    this.pending.set(server.name, { server, tools, instructions });
    this.writing ??= Promise.resolve().then(() => this.drain());
    return this.writing;
  }

  /** Resolves when every pending write is on disk. */
  flush(): Promise<void> {
    return this.writing ?? Promise.resolve();
  }

  private async drain(): Promise<void> {
    while (this.pending.size) {
      const batch = [...this.pending.values()];
      this.pending.clear();
      try {
        // Read anew: another keel process may have cached other servers meanwhile. A file that cannot
        // be read or parsed, or is not a cache, is left as it is (the read throws; nothing is written).
        const data = await this.read(this.file);
        if (!isRecord(data) || (data.servers !== undefined && !isRecord(data.servers))) continue;
        data.servers ??= {};
        for (const { server, tools, instructions } of batch)
          data.servers[server.name] = {
            fingerprint: configFingerprint(server),
            savedAt: new Date().toISOString(),
            tools,
            ...(instructions ? { instructions } : {}),
          };
        this.ensure();
        await writeJsonState(this.file, data);
        this.loaded = Promise.resolve(data);
      } catch {
        // the cache is an optimization only
      }
    }
    this.writing = undefined;
  }
}

/** A cached tool as `toolFields` checks a listed one, with its `schemaProblem` (a string) and without `readOnlyHint`; undefined when it is no tool. */
function cachedTool(raw: unknown): McpToolInfo | undefined {
  const tool = toolFields(raw);
  if (!tool) return undefined;
  const problem = (raw as { schemaProblem?: unknown }).schemaProblem;
  if (typeof problem === "string") tool.schemaProblem = problem;
  if (tool.annotations) tool.annotations = { ...tool.annotations, readOnlyHint: undefined };
  return tool;
}

/** An entry this old (ms; NaN for an unreadable time) is fresh: saved at most `maxAgeMs` ago and not after now. */
function fresh(age: number, maxAgeMs: number): boolean {
  return age >= 0 && age <= maxAgeMs;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
