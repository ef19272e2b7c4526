import { createRequire } from "node:module";
import type { Ajv, ErrorObject, ValidateFunction } from "ajv";
import type { Ajv2020 } from "ajv/dist/2020.js";
import { schemaRegExp } from "./schema-regexp.js";
import { enumKeyword } from "./enum-keyword.js";
import { uniqueItemsKeyword } from "./unique-items.js";
import type { JsonSchema, ToolDefinition } from "./types.js";

// ajv (about a hundred CommonJS files) is required on the first compile, not at start-up:
// commands that validate nothing (`keel --help`, `keel tools`) never load it.
const require = createRequire(import.meta.url);
const addFormats = (ajv: Ajv): Ajv => (require("ajv-formats") as (ajv: Ajv) => Ajv)(ajv);
/** ajv with the formats, and `uniqueItems` and `enum` checked in linear time (see uniqueItemsKeyword, enumKeyword). */
const prepare = (ajv: Ajv): Ajv => addFormats(ajv).removeKeyword("uniqueItems").addKeyword(uniqueItemsKeyword).removeKeyword("enum").addKeyword(enumKeyword);

/**
 * Most schemas `forSchema` keeps compiled (by their JSON text; the least recently used goes first): a
 * long-lived host meets ever new ones (a server's elicitation forms, the output schemas of a tool list
 * that changes), each a few KB compiled. A tool's own schema stays compiled while the tool is registered.
 */
export const MAX_COMPILED_SCHEMAS = 500;

/** A compiled validator, or the reason the schema could not be compiled. */
export type CompiledSchema = { ok: true; validate: ValidateFunction } | { ok: false; error: string };

/** Receives ajv's warnings (e.g. `unknown format "json" ignored`), which would otherwise go to the console. */
export type SchemaWarningSink = (message: string) => void;

/**
 * Compiles tool input schemas once per tool and per distinct schema (cached) and formats errors for
 * the model. Dialect: a schema without `$schema` is JSON Schema 2020-12 (as MCP specifies); draft-07
 * (or older) only when its `$schema` says so. A schema 2020-12 rejects but draft-07 accepts (array-form
 * `items`) is read as draft-07 rather than refused. ajv's warnings go to `onWarning`, once each.
 * Patterns run on RE2 (`schemaRegExp`) and `uniqueItems` hashes (`uniqueItemsKeyword`): no schema's `pattern` or
 * `uniqueItems` can make a validation take more than linear time.
 */
export class SchemaValidator {
  private readonly cache = new WeakMap<ToolDefinition, CompiledSchema>();
  /** Compiled schemas by their JSON text: tools with the same schema share one validator. */
  private readonly byText = new Map<string, CompiledSchema>();
  private readonly warned = new Set<string>();
  private ajv?: Ajv;
  private ajv2020?: Ajv2020;
  /** Compiles by the current ajv instances (see `compile`). */
  private compiles = 0;

  constructor(private readonly onWarning: SchemaWarningSink = () => undefined) {}

  /** The compiled schema of a tool, compiled on first use. Never throws. */
  forTool(tool: ToolDefinition): CompiledSchema {
    let entry = this.cache.get(tool);
    if (!entry) {
      entry = this.forSchema(tool.inputSchema);
      this.cache.set(tool, entry);
    }
    return entry;
  }

  /** A schema compiled once per distinct JSON text (output schemas, elicitation forms), of the last MAX_COMPILED_SCHEMAS used. Never throws. */
  forSchema(schema: JsonSchema): CompiledSchema {
    const text = JSON.stringify(schema);
    let entry = this.byText.get(text);
    // Map order is the order of use: a hit moves to the end, the first is the least recently used.
    if (entry) this.byText.delete(text);
    else {
      entry = this.compile(schema);
      if (this.byText.size >= MAX_COMPILED_SCHEMAS) this.byText.delete(this.byText.keys().next().value!);
    }
    this.byText.set(text, entry);
    return entry;
  }

  /**
   * Checks a schema against its dialect's meta-schema without compiling it (no code generation):
   * undefined when valid, else the problem. A schema that passes may still fail to compile (e.g. an
   * unresolvable `$ref`); the pipeline reports that at the first call. Never throws.
   */
  check(schema: JsonSchema): string | undefined {
    const { $schema, ...rest } = schema as { $schema?: string };
    // The same dialect order as `compile`: a schema either dialect accepts is fine.
    const attempts = declaresDraft07($schema)
      ? [() => this.get07(), () => this.get2020() as unknown as Ajv]
      : [() => this.get2020() as unknown as Ajv, () => this.get07()];
    let firstError: string | undefined;
    for (const get of attempts) {
      const ajv = get();
      try {
        if (ajv.validateSchema(rest)) return undefined;
        firstError ??= ajv.errorsText(ajv.errors, { dataVar: "schema" });
      } catch (error) {
        firstError ??= error instanceof Error ? error.message : String(error);
      }
    }
    return firstError;
  }

  /**
   * Compiles a schema (2020-12 unless `$schema` declares draft-07 or older; the other dialect when that fails). Never throws.
   * ajv's registry keeps no `$id` of it (a second schema with that `$id` failed to compile), and its instances are renewed (see `countCompile`).
   */
  compile(schema: JsonSchema): CompiledSchema {
    const { $schema, ...rest } = schema as { $schema?: string };
    const attempts = declaresDraft07($schema) ? [() => this.get07(), () => this.get2020()] : [() => this.get2020(), () => this.get07()];
    let firstError = "";
    this.countCompile();
    for (const get of attempts) {
      const ajv = get() as Ajv;
      // An `$id` ajv already holds (a meta-schema's) fails the compile; it is not this schema's to remove.
      const $id = (rest as { $id?: unknown }).$id;
      const id = typeof $id === "string" ? $id.replace(/#\/?$/, "") : undefined;
      const owned = id === undefined || (ajv.refs[id] === undefined && ajv.schemas[id] === undefined);
      try {
        return { ok: true, validate: ajv.compile(rest) };
      } catch (error) {
        firstError ||= error instanceof Error ? error.message : String(error);
      } finally {
        if (owned) ajv.removeSchema(rest);
      }
    }
    return { ok: false, error: firstError };
  }

  /**
   * ajv keeps every function it compiled, and the schema, in its instance for good (compiled code refers to
   * them by name): after MAX_COMPILED_SCHEMAS compiles the next compile gets new instances. The validators
   * compiled by the old ones still work; they and what the old instances hold go when they are no longer used.
   */
  private countCompile(): void {
    if (++this.compiles < MAX_COMPILED_SCHEMAS) return;
    this.compiles = 0;
    this.ajv = undefined;
    this.ajv2020 = undefined;
  }

  private logger() {
    const warn = (...args: unknown[]) => {
      const message = args.map(String).join(" ");
      if (this.warned.has(message)) return;
      this.warned.add(message);
      this.onWarning(message);
    };
    return { log: () => undefined, warn, error: warn };
  }

  private get07(): Ajv {
    if (!this.ajv) {
      const { Ajv } = require("ajv") as typeof import("ajv");
      this.ajv = prepare(new Ajv({ allErrors: true, strict: false, validateSchema: true, logger: this.logger(), code: { regExp: schemaRegExp } }));
    }
    return this.ajv;
  }

  private get2020(): Ajv2020 {
    if (!this.ajv2020) {
      const { Ajv2020 } = require("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
      this.ajv2020 = prepare(
        new Ajv2020({ allErrors: true, strict: false, logger: this.logger(), code: { regExp: schemaRegExp } }) as unknown as Ajv,
      ) as unknown as Ajv2020;
    }
    return this.ajv2020;
  }
}

/** True when `$schema` names draft-07 or an older draft (`…/draft-07/schema#`, `…/draft-04/…`). */
function declaresDraft07($schema: unknown): boolean {
  return typeof $schema === "string" && /draft-0\d/.test($schema);
}

/**
 * Problems of `input` against a compiled schema (see `describeSchemaErrors`), or undefined when it is
 * valid. Never throws: an input the check cannot walk (a recursive schema and a value nested past the
 * stack, or `uniqueItems` over such values) is one problem, so it is refused like any invalid input.
 */
export function schemaProblems(validate: ValidateFunction, input: unknown): string[] | undefined {
  try {
    if (validate(input)) return undefined;
  } catch (error) {
    const deep = error instanceof RangeError ? ": it nests too deep to check; send a flatter value" : "";
    return [`the input could not be checked against the schema (${error instanceof Error ? error.message : String(error)})${deep}`];
  }
  return describeSchemaErrors(validate.errors, input);
}

/** Most problems `describeSchemaErrors` describes; one more sentence says how many more there are. */
export const MAX_DESCRIBED_PROBLEMS = 20;
/** Most allowed values an `enum` problem lists, and most characters of any one sentence. */
const MAX_LISTED_VALUES = 20;
const MAX_PROBLEM_CHARS = 1000;

/**
 * Turns ajv errors into one sentence per problem, naming each field: "`path` must be string (got number)".
 * At most MAX_DESCRIBED_PROBLEMS distinct sentences, then "… and N more problems"; an `enum`'s values and
 * any sentence are cut short: 20,000 items of an array, each not one of 40,000 values a workspace's schema
 * allows, were 20,000 copies of the whole list (gigabytes, and keel ran out of memory).
 */
export function describeSchemaErrors(errors: ErrorObject[] | null | undefined, input: unknown): string[] {
  const out = new Set<string>();
  const all = errors ?? [];
  let i = 0;
  for (; i < all.length && out.size < MAX_DESCRIBED_PROBLEMS; i++) out.add(cut(describeError(all[i]!, input)));
  // Only count the rest: describing each could be as costly as above.
  if (i < all.length) out.add(`… and ${all.length - i} more problem${all.length - i === 1 ? "" : "s"} (the first ${MAX_DESCRIBED_PROBLEMS} are described)`);
  return [...out];
}

function describeError(e: ErrorObject, input: unknown): string {
  const field = e.instancePath ? e.instancePath.slice(1).replace(/\//g, ".") : "";
  const at = field ? `\`${field}\`` : "the input";
  switch (e.keyword) {
    case "required":
      return `missing required field \`${field ? field + "." : ""}${(e.params as { missingProperty: string }).missingProperty}\``;
    case "type":
      return `${at} must be ${(e.params as { type: string }).type} (got ${typeName(valueAt(input, e.instancePath))})`;
    case "additionalProperties":
      return `unknown field \`${field ? field + "." : ""}${(e.params as { additionalProperty: string }).additionalProperty}\` is not allowed`;
    case "enum": {
      const values = (e.params as { allowedValues: unknown[] }).allowedValues;
      if (values.length <= MAX_LISTED_VALUES) return `${at} must be one of ${JSON.stringify(values)}`;
      const shown = JSON.stringify(values.slice(0, MAX_LISTED_VALUES)).slice(0, -1);
      return `${at} must be one of ${shown}, …] (${values.length} values in all; see the schema)`;
    }
    default:
      return `${at} ${e.message ?? "is invalid"}`;
  }
}

function cut(sentence: string): string {
  return sentence.length <= MAX_PROBLEM_CHARS ? sentence : `${sentence.slice(0, MAX_PROBLEM_CHARS)}… (${sentence.length} characters)`;
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
