import type { Host } from "../host.js";
import { defineTool } from "../define-tool.js";
import type { ToolDefinition } from "../types.js";
import { searchableTools, TOOL_SEARCH } from "./tool-menu.js";

/**
 * `tool_search`: finds deferrable tools (MCP and plugin tools, see isDeferrable) by keywords; the agent loop makes the returned
 * tools callable for the rest of the session (`data.tools`).
 */
export function toolSearchTool(host: Host): ToolDefinition {
  const inputSchema = {
    type: "object",
    properties: {
      query: { type: "string", description: "Keywords: what the tool should do, or part of its name" },
      limit: { type: "integer", minimum: 1, maximum: 20, description: "Most tools to return (default 8)" },
    },
    required: ["query"],
    additionalProperties: false,
  } as const;
  return defineTool(inputSchema, {
    name: TOOL_SEARCH,
    description: "Search the MCP and plugin tools that are not loaded yet, by keywords. Matching tools become callable for the rest of the session.",
    source: { kind: "runtime", id: "agent" },
    risk: ["read"],
    readOnly: true,
    async execute(input) {
      const words = input.query
        .toLowerCase()
        .split(/[^a-z0-9]+/)
        .filter(Boolean);
      const scored = searchableTools(host)
        .map((t) => {
          const name = t.name.toLowerCase();
          const text = `${name} ${t.description.toLowerCase()}`;
          let score = 0;
          for (const w of words) score += (name.includes(w) ? 3 : 0) + (text.includes(w) ? 1 : 0);
          if (name === input.query.toLowerCase()) score += 10;
          return { t, score };
        })
        .filter((x) => x.score > 0)
        .sort((a, b) => b.score - a.score || a.t.name.localeCompare(b.t.name))
        .slice(0, input.limit ?? 8);
      if (scored.length === 0) return { content: `No tools match "${input.query}". Try other keywords.`, data: { tools: [] } };
      const lines = scored.map(({ t }) => `- ${t.name}: ${t.description.split("\n")[0]}\n  input schema: ${JSON.stringify(t.inputSchema)}`);
      return {
        content: `Found ${scored.length} tool(s); they are now callable:\n${lines.join("\n")}`,
        data: { tools: scored.map(({ t }) => t.name) },
      };
    },
  });
}
