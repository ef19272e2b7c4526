import { type CompiledSchema, describeSchemaErrors } from "../../core/index.js";
import type { McpToolInfo } from "./tool-cache.js";

/**
 * Checks a successful `tools/call` result against the tool's `outputSchema` (`compiled` gives it
 * compiled by keel's validator — 2020-12 unless declared otherwise — on the first call; this runs for
 * tools on every page of `tools/list`). Returns the problem as a sentence, or undefined when the result
 * conforms, the tool has no output schema, the result is an error, or the schema cannot be compiled
 * (then `onUncompilable` is told the reason, and the result passes unchecked). Never throws.
 */
export function outputProblem(
  compiled: () => CompiledSchema,
  info: McpToolInfo,
  result: { isError?: unknown; structuredContent?: unknown },
  onUncompilable: (reason: string) => void,
): string | undefined {
  if (!info.outputSchema || result.isError === true) return undefined;
  if (result.structuredContent === undefined || result.structuredContent === null)
    return `tool "${info.name}" declares an output schema but returned no structuredContent`;
  const schema = compiled();
  if (!schema.ok) {
    onUncompilable(schema.error);
    return undefined;
  }
  if (schema.validate(result.structuredContent)) return undefined;
  const why = describeSchemaErrors(schema.validate.errors, result.structuredContent).slice(0, 5).join("; ");
  return `structuredContent of tool "${info.name}" does not match its output schema: ${why}`;
}
