import { didYouMean, MAX_COMPARED_NAME, quotedName } from "./did-you-mean.js";
import type { Host } from "./host.js";
import type { ToolDefinition } from "./types.js";

/** What a call whose input breaks the tool's schema says: the problems, and the schema (cut at 1500 characters). */
export function schemaMessage(name: string, problems: string[], tool: ToolDefinition): string {
  let schema = JSON.stringify(tool.inputSchema);
  if (schema.length > 1500) schema = schema.slice(0, 1500) + "…";
  return `Invalid input for ${name}: ${problems.join("; ")}. Fix the arguments and call again. Expected input schema: ${schema}`;
}

/**
 * What a call of a tool the registry does not hold says: a plugin's `unknownTool` explanation when one taps it, else
 * the closest names (`didYouMean`) or how to list the tools. A name longer than any tool's is neither compared nor echoed whole.
 */
export function unknownToolMessage(host: Host, name: string): string {
  // no tool has a name that long: nothing is asked or compared, and the name is not echoed whole
  if (name.length > MAX_COMPARED_NAME)
    return `Unknown tool ${quotedName(name)}: no tool has a name longer than ${MAX_COMPARED_NAME} characters. Run \`keel tools\` to list the ${host.registry.listing().length} available tools.`;
  let why: string | undefined;
  try {
    why = host.hooks.unknownTool.call({ host, name });
  } catch {
    why = undefined; // an explanation is a courtesy: a failing tap leaves the plain message
  }
  if (why) return `Unknown tool "${name}": ${why}`;
  const names = host.registry.listing().map((t) => t.name);
  const hint = didYouMean(name, names, 5) || ` Run \`keel tools\` to list the ${names.length} available tools.`;
  return `Unknown tool "${name}".${hint}`;
}
