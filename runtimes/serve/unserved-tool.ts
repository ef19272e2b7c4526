import { didYouMean, forModel, MAX_COMPARED_NAME, type Host } from "../../core/index.js";
import { WORKFLOW_TOOL_PREFIX } from "./served-tools.js";

/** What explains why `keel mcp serve` does not serve a name. */
export interface UnservedContext {
  host: Host;
  /** `--tools` as a predicate, and the globs as given (undefined or empty: every tool is served). */
  served: (name: string) => boolean;
  globs?: readonly string[];
  /** The names keel serves now (for "did you mean"). */
  servedNames: readonly string[];
}

/**
 * The message of the JSON-RPC error (-32602, as the MCP spec has a server answer an unknown tool)
 * for a `tools/call` of a name keel does not serve, saying why as a call of it in an agent turn
 * would: a tool `--tools` leaves out, one a plugin blocks, a workflow that needs trust or is served
 * as a prompt, an MCP server that did not start, awaits a login or is untrusted (the MCP runtime's
 * `unknownTool` explanation), else the served names it is close to. Worded for a model (a serve
 * client's reader): trusting is something to ask the user for.
 */
export function unservedToolMessage(name: string, c: UnservedContext): string {
  // MCP tool names are at most 128 characters (the cap didYouMean shares): a longer one is no tool's, and is not compared nor echoed whole.
  if (name.length > MAX_COMPARED_NAME)
    return `Unknown tool "${name.slice(0, MAX_COMPARED_NAME)}…" (${name.length} characters; tool names have at most ${MAX_COMPARED_NAME}): tools/list lists the ${c.servedNames.length} tools served.`;
  return forModel(`Unknown tool "${name}": ${why(name, c)}`);
}

function why(name: string, c: UnservedContext): string {
  const { host } = c;
  const resolved = host.registry.resolve(name);
  const workflow = name.startsWith(WORKFLOW_TOOL_PREFIX) ? workflowReason(host, name.slice(WORKFLOW_TOOL_PREFIX.length)) : undefined;
  const unavailable = resolved || workflow ? undefined : runtimeReason(host, name);
  // a name that exists (or would, once its server is up) but that `--tools` leaves out: fixing anything else would not serve it
  if ((resolved || workflow || unavailable) && !c.served(name) && c.globs?.length)
    return `keel mcp serve was started with --tools ${c.globs.map((g) => JSON.stringify(g)).join(" ")}, which does not match it, so it is not served. The user can restart keel mcp serve with a --tools pattern that matches "${name}"; tools/list lists the ${c.servedNames.length} tools served.`;
  if (resolved) {
    const block = host.hooks.toolBlocked.call({ host, calledAs: name, tool: resolved.tool });
    if (block) return `it is not served: ${block.by} blocks it (${block.message}).`;
  }
  const reason = workflow ?? unavailable;
  if (reason) return reason;
  const close = didYouMean(name, c.servedNames, 5);
  return `keel does not serve a tool of that name.${close} tools/list lists the ${c.servedNames.length} tools served.`;
}

/** A runtime's explanation of a name it has no tool for (the MCP runtime's: its server did not start, awaits a login, is untrusted). */
function runtimeReason(host: Host, name: string): string | undefined {
  try {
    return host.hooks.unknownTool.call({ host, name });
  } catch {
    return undefined; // an explanation is a courtesy: a failing tap leaves the plain message
  }
}

/** Why the workflow behind `workflow__NAME` is not a served tool, when one of that name exists. */
function workflowReason(host: Host, name: string): string | undefined {
  const workflows = host.service("workflows");
  const wf = workflows?.get(name);
  if (!wf) return undefined;
  if (wf.steps.length === 1 && wf.steps[0]!.kind === "command")
    return `"${wf.name}" is a prompt command: keel mcp serve serves it as the prompt "${wf.name}" (prompts/get), not as a tool.`;
  if (workflows!.needsTrust(wf))
    return `the workflow "${wf.name}" runs what only a trusted workspace may run, and this workspace is not trusted, so it is not served: ask the user to run \`keel trust\` in this workspace and restart keel mcp serve.`;
  return undefined;
}
