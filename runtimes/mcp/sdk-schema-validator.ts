import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { describeSchemaErrors, type Host } from "../../core/index.js";

/**
 * The JSON Schema validator handed to the SDK's `Client`: keel's own (2020-12 unless declared,
 * compiled once per distinct schema, ajv warnings to diagnostics). Without it every `Client`
 * builds its own ajv instance (~2.5 ms per server start, ~12 ms for the first). keel lists tools
 * itself (list-tools.ts), so the SDK compiles nothing through it in keel's own paths; a schema that
 * cannot be compiled validates everything rather than failing the request that carried it.
 */
export function sdkSchemaValidator(host: Host): jsonSchemaValidator {
  return {
    getValidator(schema) {
      const compiled = host.validator.forSchema(schema as Record<string, unknown>);
      return (input) => {
        if (!compiled.ok || compiled.validate(input)) return { valid: true, data: input as never, errorMessage: undefined };
        return { valid: false, data: undefined, errorMessage: describeSchemaErrors(compiled.validate.errors, input).join("; ") };
      };
    },
  };
}
