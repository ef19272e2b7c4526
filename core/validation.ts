import { createRequire } from "node:module";
import type { Ajv, ErrorObject, ValidateFunction } from "ajv";
import type { Ajv2020 } from "ajv/dist/2020.js";
import type { JsonSchema, ToolDefinition } from "./types.js";

// ajv (about a hundred CommonJS files) is required on the first compile, not at start-up:
// commands that validate nothing (`keel --help`, `keel tools`) never load it.
const require = createRequire(import.meta.url);
const addFormats = (ajv: Ajv): Ajv => (require("ajv-formats") as (ajv: Ajv) => Ajv)(ajv);

/** A compiled validator, or the reason the schema could not be compiled. */
export type CompiledSchema = { ok: true; validate: ValidateFunction } | { ok: false; error: string };

/** Compiles tool input schemas once per tool and per distinct schema (cached) and formats errors for the model. */
export class SchemaValidator {
  private readonly cache = new WeakMap<ToolDefinition, CompiledSchema>();
  /** Compiled schemas by their JSON text: tools with the same schema share one validator. */
  private readonly byText = new Map<string, CompiledSchema>();
  private ajv?: Ajv;
  private ajv2020?: Ajv2020;

  /** The compiled schema of a tool, compiled on first use. Never throws. */
  forTool(tool: ToolDefinition): CompiledSchema {
    let entry = this.cache.get(tool);
    if (!entry) {
      const text = JSON.stringify(tool.inputSchema);
      entry = this.byText.get(text) ?? this.compile(tool.inputSchema);
      this.byText.set(text, entry);
      this.cache.set(tool, entry);
    }
    return entry;
  }

  /**
   * Checks a schema against its dialect's meta-schema without compiling it (no code generation):
   * undefined when valid, else the problem. A schema that passes may still fail to compile (e.g. an
   * unresolvable `$ref`); the pipeline reports that at the first call. Never throws.
   */
  check(schema: JsonSchema): string | undefined {
    const { $schema, ...rest } = schema as { $schema?: string };
    const ajv = typeof $schema === "string" && $schema.includes("2020-12") ? (this.get2020() as unknown as Ajv) : this.get07();
    try {
      if (ajv.validateSchema(rest)) return undefined;
      return ajv.errorsText(ajv.errors, { dataVar: "schema" });
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }

  /** Compiles a schema (draft-07, or 2020-12 when it says so or draft-07 fails). Never throws. */
  compile(schema: JsonSchema): CompiledSchema {
    const { $schema, ...rest } = schema as { $schema?: string };
    const prefer2020 = typeof $schema === "string" && $schema.includes("2020-12");
    const attempts = prefer2020 ? [() => this.get2020(), () => this.get07()] : [() => this.get07(), () => this.get2020()];
    let lastError = "";
    for (const get of attempts) {
      try {
        return { ok: true, validate: get().compile(rest) };
      } catch (error) {
        lastError = error instanceof Error ? error.message : String(error);
      }
    }
    return { ok: false, error: lastError };
  }

  private get07(): Ajv {
    if (!this.ajv) {
      const { Ajv } = require("ajv") as typeof import("ajv");
      this.ajv = addFormats(new Ajv({ allErrors: true, strict: false, validateSchema: true }));
    }
    return this.ajv;
  }

  private get2020(): Ajv2020 {
    if (!this.ajv2020) {
      const { Ajv2020 } = require("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
      this.ajv2020 = addFormats(new Ajv2020({ allErrors: true, strict: false }) as unknown as Ajv) as unknown as Ajv2020;
    }
    return this.ajv2020;
  }
}

/** Turns ajv errors into one sentence per problem, naming each field: "`path` must be string (got number)". */
export function describeSchemaErrors(errors: ErrorObject[] | null | undefined, input: unknown): string[] {
  const out: string[] = [];
  for (const e of errors ?? []) {
    const field = e.instancePath ? e.instancePath.slice(1).replace(/\//g, ".") : "";
    const at = field ? `\`${field}\`` : "the input";
    switch (e.keyword) {
      case "required": {
        const missing = (e.params as { missingProperty: string }).missingProperty;
        out.push(`missing required field \`${field ? field + "." : ""}${missing}\``);
        break;
      }
      case "type":
        out.push(`${at} must be ${(e.params as { type: string }).type} (got ${typeName(valueAt(input, e.instancePath))})`);
        break;
      case "additionalProperties":
        out.push(`unknown field \`${field ? field + "." : ""}${(e.params as { additionalProperty: string }).additionalProperty}\` is not allowed`);
        break;
      case "enum":
        out.push(`${at} must be one of ${JSON.stringify((e.params as { allowedValues: unknown[] }).allowedValues)}`);
        break;
      default:
        out.push(`${at} ${e.message ?? "is invalid"}`);
    }
  }
  return [...new Set(out)];
}

function valueAt(input: unknown, pointer: string): unknown {
  let cur = input;
  for (const part of pointer.split("/").slice(1)) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[part.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return cur;
}

function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number" && Number.isInteger(v)) return "integer";
  return typeof v;
}
