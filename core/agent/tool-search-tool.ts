import type { Host } from "../host.js";
import { defineTool } from "../define-tool.js";
import type { ToolDefinition } from "../types.js";
import { rankTools } from "./rank-tools.js";
import { searchableTools, TOOL_SEARCH } from "./tool-menu.js";

/**
 * `tool_search`: finds deferrable tools (MCP and plugin tools, see isDeferrable) by keywords, ranked by rankTools; the agent
 * loop makes the returned tools (`data.tools`) callable, within the found-tool bound of found-tools.ts.
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
    description:
      "Search the MCP and plugin tools that are not loaded yet, by keywords. Matching tools become callable; tools found earlier and not used lately may be unloaded to keep the tool list small (search again for them).",
    source: { kind: "runtime", id: "agent" },
    risk: ["read"],
    readOnly: true,
    async execute(input) {
      const scored = rankTools(searchableTools(host), input.query, input.limit ?? 8);
      if (scored.length === 0) return { content: `No tools match "${input.query}". Try other keywords.`, data: { tools: [] } };
      const lines = scored.map((t) => `- ${t.name}: ${summary(t.description)}\n  input schema: ${JSON.stringify(t.inputSchema)}`);
      return {
        content: `Found ${scored.length} tool(s); they are now callable:\n${lines.join("\n")}`,
        data: { tools: scored.map((t) => t.name) },
      };
    },
  });
}

/** Most characters of a description a search result shows: a stuffed one cannot crowd the other results out of the output limit. */
const SUMMARY_CHARS = 300;

/** A description's first line, cut at SUMMARY_CHARS (the tool's full description is sent with its definition once it is loaded). */
function summary(description: string): string {
  const line = description.split("\n")[0]!;
  return line.length > SUMMARY_CHARS ? `${line.slice(0, SUMMARY_CHARS)}…` : line;
}
