import type { Observation } from "../../core/index.js";

/**
 * What an MCP client that cannot answer approval prompts (no elicitation) should do about an
 * `approval_required` call: the exact rule to add to keel's config, or, when an `ask` rule or a
 * command keel cannot check forces the question, why no allow rule helps.
 */
export function approvalHint(obs: Observation): string {
  const tool = String(obs.tool);
  const rule = typeof obs.metadata.rule === "string" ? obs.metadata.rule : undefined;
  const head = "This MCP client cannot answer keel's approval prompts (it does not support elicitation), and keel mcp serve never approves on its own.";
  if (obs.metadata.strict === true)
    return `${head} keel could not check this call exactly, so only an explicit answer approves it: use a client that supports elicitation, or change the call.`;
  if (rule)
    return `${head} The ask rule "${rule}" in keel's config asks for every matching call (ask beats allow): remove or narrow that rule, or use a client that supports elicitation.`;
  return `${head} To allow it, add the rule "${tool}" to "permissions.allow" in keel.config.json (e.g. {"permissions": {"allow": ["${tool}"]}}; the workspace must be trusted for allow rules: \`keel trust\`), or use a client that supports elicitation.`;
}
