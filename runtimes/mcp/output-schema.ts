import { describeSchemaErrors, type Host } from "../../core/index.js";
import type { McpToolInfo } from "./tool-cache.js";

/**
 * Checks a successful `tools/call` result against the tool's `outputSchema` (keel's validator:
 * 2020-12 unless declared otherwise, compiled once per distinct schema on the first call, for tools
 * on every page of `tools/list`). Returns the problem as a sentence, or undefined when the result
 * conforms, the tool has no output schema, the result is an error, or the schema cannot be compiled
 * (then `onUncompilable` is told the reason, and the result passes unchecked). Never throws.
 */
export function outputProblem(
  host: Host,
  info: McpToolInfo,
  result: { isError?: unknown; structuredContent?: unknown },
  onUncompilable: (reason: string) => void,
): string | undefined {
  if (!info.outputSchema || result.isError === true) return undefined;
  if (result.structuredContent === undefined || result.structuredContent === null)
    return `tool "${info.name}" declares an output schema but returned no structuredContent`;
  const compiled = host.validator.forSchema(info.outputSchema);
  if (!compiled.ok) {
    onUncompilable(compiled.error);
    return undefined;
  }
  if (compiled.validate(result.structuredContent)) return undefined;
  const why = describeSchemaErrors(compiled.validate.errors, result.structuredContent).slice(0, 5).join("; ");
  return `structuredContent of tool "${info.name}" does not match its output schema: ${why}`;
}
