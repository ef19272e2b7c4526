import { ToolError } from "../../core/index.js";
import type { McpConnection } from "./mcp-connection.js";
import { paginate } from "./paginate.js";

/** A resource as `resources/list` gives it. */
export interface ListedResource {
  uri: string;
  name: string;
  mimeType?: string;
  description?: string;
}

/** A resource template as `resources/templates/list` gives it. */
export interface ListedTemplate {
  uriTemplate: string;
  name: string;
  mimeType?: string;
  description?: string;
}

/**
 * Every page of a server's resources and resource templates (none when it does not offer
 * resources; a server without templates has none). Throws what listing the resources throws.
 */
export async function listServerResources(conn: McpConnection, signal: AbortSignal): Promise<{ resources: ListedResource[]; templates: ListedTemplate[] }> {
  return conn.withClient(signal, async (client) => {
    if (!client.getServerCapabilities()?.resources) return { resources: [], templates: [] };
    const resources = await paginate(async (cursor) => {
      const r = await client.listResources(cursor ? { cursor } : undefined, { signal });
      return { items: r.resources as ListedResource[], nextCursor: r.nextCursor };
    });
    const templates = await paginate(async (cursor) => {
      const r = await client.listResourceTemplates(cursor ? { cursor } : undefined, { signal });
      return { items: r.resourceTemplates as ListedTemplate[], nextCursor: r.nextCursor };
    }).catch(() => [] as ListedTemplate[]);
    return { resources, templates };
  });
}

/**
 * The one server a resource URI belongs to, when the caller named none: the one server that lists
 * the URI or has a resource template matching it. A URI is never sent to a server that does not
 * claim it — a server listed first must not see (or answer for) another server's resources — and a
 * listing does not beat a template: a hostile server that lists a URI it guessed (another server's
 * `bank://items/42`) makes the URI ambiguous instead of capturing it. Servers are listed in
 * parallel. A ToolError(precondition_failed) when no server, or more than one, claims it: pass `server`.
 */
export async function resourceOwner(conns: McpConnection[], uri: string, signal: AbortSignal): Promise<McpConnection> {
  const { UriTemplate } = await import("@modelcontextprotocol/sdk/shared/uriTemplate.js");
  const matches = (template: string) => {
    try {
      return new UriTemplate(template).match(uri) !== null;
    } catch {
      return false;
    }
  };
  const claims = await Promise.all(
    conns.map(async (conn) => {
      const listed = await listServerResources(conn, signal).catch((error: unknown) => {
        if (signal.aborted) throw error;
        return { resources: [], templates: [] };
      });
      return listed.resources.some((r) => r.uri === uri) || listed.templates.some((t) => matches(t.uriTemplate));
    }),
  );
  const owners = conns.filter((_, i) => claims[i]);
  if (owners.length === 1) return owners[0]!;
  if (owners.length > 1)
    throw new ToolError(
      `Resource ${uri} is offered by several MCP servers (${owners.map((c) => c.name).join(", ")}); pass \`server\` to choose one.`,
      "precondition_failed",
    );
  throw new ToolError(
    `No MCP server lists the resource ${uri} or a template matching it. Run mcp_list_resources to see the available URIs, or pass \`server\` to ask one server for it.`,
    "precondition_failed",
  );
}
