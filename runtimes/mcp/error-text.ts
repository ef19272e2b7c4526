/** Matches one SDK error prefix, `MCP error -32602: `. */
const PREFIX = /MCP error -?\d+:\s*/g;

/**
 * An MCP error text without the SDK's `MCP error <code>: ` prefixes, which pile up when a server
 * wraps an McpError into a tool result and the client wraps it again. The code of the first prefix
 * is kept once, in brackets at the end (`… (MCP error -32602)`), when there was one. Never throws.
 */
export function cleanMcpErrorText(text: string): string {
  const first = /MCP error (-?\d+):/.exec(text);
  if (!first) return text;
  const stripped = text.replace(PREFIX, "").trim();
  return `${stripped} (MCP error ${first[1]})`;
}
