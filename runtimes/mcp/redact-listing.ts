import { redactSecrets, secretRedactor } from "../../core/index.js";
import type { McpToolInfo } from "./tool-cache.js";

/**
 * A server's tools with its `secrets` redacted (`***`) in the text written for people and the model: each tool's
 * `title`, `description` and `annotations.title` (a server that names the database it reaches, `Runs SQL against
 * postgres://app:pw@db/app`, would otherwise put the password before the model and into the tool cache under
 * `.keel/`). Names and schemas stay as listed: a tool is called by its name and with its schema's keys. Returns the
 * same array when there are no secrets. Never throws.
 */
export function redactToolInfos(tools: McpToolInfo[], secrets: readonly string[]): McpToolInfo[] {
  if (!secrets.length) return tools;
  const redact = secretRedactor(secrets);
  const text = (s: string | undefined) => (typeof s === "string" ? redact(s) : s);
  return tools.map((t) => ({
    ...t,
    ...(t.title !== undefined ? { title: text(t.title) } : {}),
    ...(t.description !== undefined ? { description: text(t.description) } : {}),
    ...(t.annotations?.title !== undefined ? { annotations: { ...t.annotations, title: text(t.annotations.title) } } : {}),
  }));
}

/** A server's `instructions` with its `secrets` redacted; undefined stays undefined. Never throws. */
export function redactInstructions(instructions: string | undefined, secrets: readonly string[]): string | undefined {
  return typeof instructions === "string" ? redactSecrets(instructions, secrets) : instructions;
}
