import type { Host } from "./host.js";

/** One row of `keel tools --json` (and of the library's `listTools`). */
export interface ToolRow {
  name: string;
  description: string;
  source: { kind: string; id: string };
  inputSchema: Record<string, unknown>;
  blocked: boolean;
  blockedBy?: string;
  aliasOf?: string;
  /** `keel tools` only: a new session here would hold this tool back behind `tool_search` until found. */
  deferred?: boolean;
  risk: string[];
  readOnly: boolean;
}

/** The unified registry as rows, with plugin blocks resolved. Never throws. */
export function toolRows(host: Host): ToolRow[] {
  return host.registry.listing().map((t) => {
    const resolved = host.registry.resolve(t.name)!;
    const block = host.hooks.toolBlocked.call({ host, calledAs: t.name, tool: resolved.tool });
    return {
      name: t.name,
      description: t.description,
      source: t.source,
      inputSchema: t.inputSchema,
      blocked: Boolean(block),
      ...(block ? { blockedBy: block.by } : {}),
      ...(t.aliasOf ? { aliasOf: t.aliasOf } : {}),
      risk: t.risk,
      readOnly: t.readOnly,
    };
  });
}
