import type { Host, RunContext } from "../../core/index.js";

/** One resource as `resources/list` returns it. */
export interface ServedResource {
  uri: string;
  name: string;
  mimeType?: string;
  description?: string;
}

/** A resource's text, or why it could not be read. */
export type ReadOutcome = { uri: string; mimeType?: string; text: string } | { error: string };

/**
 * Local manifest resources and upstream servers' resources, listed by the `mcp_list_resources`
 * tool through the pipeline (so deny rules and hooks hold). Empty when the workspace has no MCP
 * manifests (the tool is absent) or the call is refused.
 */
export async function listResources(host: Host, run: RunContext): Promise<ServedResource[]> {
  if (!host.registry.resolve("mcp_list_resources")) return [];
  const obs = await host.runTool({ tool: "mcp_list_resources", input: {} }, run);
  if (!obs.ok) return [];
  const rows = ((obs.data as { resources?: ServedResource[] } | null)?.resources ?? []) as (ServedResource & { server: string | null })[];
  const seen = new Set<string>();
  return rows.flatMap((r) => {
    if (seen.has(r.uri)) return [];
    seen.add(r.uri);
    return [{ uri: r.uri, name: r.name, ...(r.mimeType ? { mimeType: r.mimeType } : {}), ...(r.description ? { description: r.description } : {}) }];
  });
}

/** Reads one resource with the `mcp_read_resource` tool through the pipeline; a refusal or failure is an `error` naming why. */
export async function readResource(host: Host, uri: string, run: RunContext): Promise<ReadOutcome> {
  if (!host.registry.resolve("mcp_read_resource")) return { error: `Unknown resource ${uri}: this workspace declares no MCP resources or servers.` };
  const obs = await host.runTool({ tool: "mcp_read_resource", input: { uri } }, run);
  if (!obs.ok) return { error: obs.content };
  const data = obs.data as { mimeType?: string; contents?: { mimeType?: string }[] } | null;
  const mimeType = data?.mimeType ?? data?.contents?.[0]?.mimeType;
  return { uri, ...(mimeType ? { mimeType } : {}), text: obs.content };
}
