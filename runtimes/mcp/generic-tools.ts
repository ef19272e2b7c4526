import {
  type BinaryPart,
  defineTool,
  type InputOf,
  objectSchema,
  readRefusal,
  type SchemaLiteral,
  type ToolContext,
  type ToolDefinition,
  ToolError,
  type ToolResult,
} from "../../core/index.js";
import { readLocalResource } from "./local-resources.js";
import { listServerResources, resourceOwner } from "./resource-owners.js";
import { mcpCallTool } from "./mcp-call-tool.js";
import type { McpConnection } from "./mcp-connection.js";
import type { McpManager } from "./mcp-manager.js";
import { paginate } from "./paginate.js";
import { filterTools } from "./server-tools.js";
import { usableServers } from "./usable-servers.js";

const SOURCE = { kind: "runtime" as const, id: "mcp" };

/**
 * The generic MCP tools of the reference host: `mcp_list_tools`, `mcp_call_tool` (which
 * re-enters the pipeline, see mcp-call-tool.ts), `mcp_list_resources`, `mcp_read_resource`,
 * `mcp_list_prompts`, `mcp_get_prompt`.
 * Server names match case-insensitively; failures are ToolErrors that say what to pass instead.
 */
export function genericMcpTools(manager: McpManager): ToolDefinition[] {
  /** A generic tool; `execute` receives the input type derived from `properties` and `required`. */
  const tool = <
    const P extends Record<string, SchemaLiteral>,
    const R extends readonly (keyof P & string)[],
    I = InputOf<ReturnType<typeof objectSchema<P, R>>>,
  >(
    name: string,
    description: string,
    properties: P,
    required: R,
    risk: ToolDefinition["risk"],
    execute: (input: I, ctx: ToolContext) => Promise<ToolResult>,
  ): ToolDefinition<NoInfer<I>> =>
    defineTool<ReturnType<typeof objectSchema<P, R>>, I>(objectSchema(properties, required), {
      name,
      description,
      source: SOURCE,
      risk,
      readOnly: !risk.includes("execute"),
      execute,
    });
  const serverProp = { server: { type: "string", description: "MCP server name (case-insensitive)" } } as const;
  return [
    tool(
      "mcp_list_tools",
      "List the tools of the configured MCP servers, optionally filtered by a text query or one server.",
      { query: { type: "string" }, ...serverProp },
      [],
      ["read"],
      async (input) => {
        const q = input.query?.toLowerCase();
        const rows = usableServers(manager, input.server)
          .flatMap((c) => filterTools(c, c.tools).map((t) => ({ server: c.name, tool: t.name, description: t.description ?? "" })))
          .filter((r) => !q || `${r.tool} ${r.description}`.toLowerCase().includes(q));
        return {
          content: rows.length ? rows.map((r) => `${r.server}/${r.tool}: ${firstLine(r.description)}`).join("\n") : "No MCP tools match.",
          data: { tools: rows },
        };
      },
    ),
    mcpCallTool(manager),
    tool(
      "mcp_list_resources",
      "List resources and resource templates (URI templates to fill in, then read) of the MCP servers, and the local resources declared in MCP manifests.",
      serverProp,
      [],
      ["read"],
      async (input, ctx) => {
        const rows: { server: string | null; uri: string; name: string; mimeType?: string; description?: string }[] = [];
        const templates: { server: string; uriTemplate: string; name: string; mimeType?: string; description?: string }[] = [];
        for (const r of manager.localResources)
          if (!input.server || r.server?.toLowerCase() === input.server.toLowerCase())
            rows.push({ server: r.server ?? null, uri: r.uri, name: r.name, mimeType: r.mimeType, description: r.description });
        for (const c of usableServers(manager, input.server)) {
          const listed = await listServerResources(c, ctx.signal);
          for (const r of listed.resources) rows.push({ server: c.name, uri: r.uri, name: r.name, mimeType: r.mimeType, description: r.description });
          for (const t of listed.templates)
            templates.push({ server: c.name, uriTemplate: t.uriTemplate, name: t.name, mimeType: t.mimeType, description: t.description });
        }
        const lines = [
          ...rows.map((r) => `${r.server ?? "local"}: ${r.uri} (${r.name})`),
          ...templates.map((t) => `${t.server}: template ${t.uriTemplate} (${t.name})`),
        ];
        return {
          content: lines.length ? lines.join("\n") : "No MCP resources.",
          data: { resources: rows, resourceTemplates: templates },
        };
      },
    ),
    tool(
      "mcp_read_resource",
      "Read one MCP resource by URI (a server resource, or a local manifest resource by URI or name).",
      { uri: { type: "string" }, ...serverProp },
      ["uri"],
      ["read"],
      async (input, ctx) => {
        const local = manager.localResources.find((r) => r.uri === input.uri || r.name === input.uri);
        if (local && !input.server) {
          const root = ctx.host.workspace.root;
          const r = await readLocalResource(local, root, (abs) => readRefusal(ctx.host, root, abs));
          return { content: r.text, data: { uri: r.uri, mimeType: r.mimeType, source: "local" } };
        }
        // Without `server`, only the server that lists the URI (or a template matching it) is asked.
        const c =
          input.server !== undefined ? usableServers(manager, input.server)[0]! : await resourceOwner(usableServers(manager, undefined), input.uri, ctx.signal);
        const r = await c.withClient(ctx.signal, (client) => client.readResource({ uri: input.uri }, { signal: ctx.signal }));
        const texts: string[] = [];
        const binary: BinaryPart[] = [];
        for (const part of r.contents as { text?: string; blob?: string; mimeType?: string }[]) {
          if (typeof part.text === "string") texts.push(part.text);
          else if (typeof part.blob === "string")
            binary.push({ data: Buffer.from(part.blob, "base64"), mimeType: part.mimeType ?? "application/octet-stream", kind: "blob" });
        }
        return {
          content: texts.join("\n"),
          binary,
          data: {
            uri: input.uri,
            server: c.name,
            contents: (r.contents as { mimeType?: string; uri: string }[]).map((p) => ({ uri: p.uri, mimeType: p.mimeType })),
          },
          metadata: { server_name: c.name },
        };
      },
    ),
    tool("mcp_list_prompts", "List the prompts the MCP servers offer.", serverProp, [], ["read"], async (input, ctx) => {
      const rows: { server: string; name: string; description?: string; arguments?: unknown }[] = [];
      for (const c of usableServers(manager, input.server)) {
        const list = await c.withClient(ctx.signal, (client) =>
          client.getServerCapabilities()?.prompts
            ? paginate(async (cursor) => {
                const r = await client.listPrompts(cursor ? { cursor } : undefined, { signal: ctx.signal });
                return { items: r.prompts, nextCursor: r.nextCursor };
              })
            : Promise.resolve([]),
        );
        for (const p of list) rows.push({ server: c.name, name: p.name, description: p.description, arguments: p.arguments });
      }
      return {
        content: rows.length ? rows.map((p) => `${p.server}/${p.name}: ${firstLine(p.description ?? "")}`).join("\n") : "No MCP prompts.",
        data: { prompts: rows },
      };
    }),
    tool(
      "mcp_get_prompt",
      "Get one prompt of an MCP server, rendered with its arguments.",
      { name: { type: "string" }, ...serverProp, arguments: { type: "object", additionalProperties: { type: "string" } } },
      ["name"],
      ["read"],
      async (input, ctx) => {
        const servers = usableServers(manager, input.server);
        const owners: McpConnection[] = [];
        for (const c of servers) {
          // Every page of prompts/list, as mcp_list_prompts reads them (a prompt on page 2 is found).
          const names = await c.withClient(ctx.signal, async (client) =>
            client.getServerCapabilities()?.prompts
              ? paginate(async (cursor) => {
                  const r = await client.listPrompts(cursor ? { cursor } : undefined, { signal: ctx.signal });
                  return { items: r.prompts.map((p) => p.name), nextCursor: r.nextCursor };
                })
              : ([] as string[]),
          );
          if (names.includes(input.name)) owners.push(c);
        }
        if (owners.length > 1 && !input.server)
          throw new ToolError(
            `Prompt "${input.name}" exists on several MCP servers (${owners.map((o) => o.name).join(", ")}); pass \`server\`.`,
            "precondition_failed",
          );
        const conn = owners[0] ?? (input.server ? servers[0] : undefined);
        if (!conn) throw new ToolError(`No MCP server offers a prompt named "${input.name}". Run mcp_list_prompts to see the prompts.`, "precondition_failed");
        const r = await conn.withClient(ctx.signal, (client) => client.getPrompt({ name: input.name, arguments: input.arguments }, { signal: ctx.signal }));
        const lines = r.messages.map(
          (m) =>
            `${m.role}: ${(m.content as { type: string; text?: string }).type === "text" ? (m.content as { text: string }).text : `[${(m.content as { type: string }).type}]`}`,
        );
        return {
          content: lines.join("\n\n"),
          data: { server: conn.name, description: r.description, messages: r.messages },
          metadata: { server_name: conn.name },
        };
      },
    ),
  ];
}

function firstLine(s: string): string {
  return s.split("\n")[0]!.trim();
}
