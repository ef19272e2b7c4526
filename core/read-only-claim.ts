import type { Host } from "./host.js";

/**
 * Whether a call of `name` may have run even though the log holds no record of it starting. keel records a call
 * before running its tool unless the tool is read-only (runToolIntent), so a call with no such record ran only if
 * its tool is read-only. For keel's own tools (built-in and runtime) that is keel's word and harmless. For any other
 * (an MCP server's tool, a plugin's) it is a claim keel cannot check — a server's `readOnlyHint` may lie, and a
 * tool registered from the tool cache no longer carries it — so such a call may have run with a side effect, which
 * must not be answered "Not run" and repeated. A name that no longer resolves may have been anything: true.
 */
export function unrecordedMayHaveRun(host: Host, name: string): boolean {
  const tool = host.registry.resolve(name)?.tool;
  return tool === undefined || (tool.source.kind !== "builtin" && tool.source.kind !== "runtime");
}
