import { describe, expect, it } from "vitest";
import { MAX_COMPILED_SCHEMAS, SchemaValidator } from "../../core/validation.js";
import type { JsonSchema } from "../../core/types.js";
import { Retained } from "../helpers/retained.js";

/** An elicitation form as a server sends it: the same fields, a description naming what it asks about. */
const form = (i: number) => ({
  type: "object",
  properties: { confirm: { type: "boolean", description: `Delete the file f${i}.txt?` }, reason: { type: "string", maxLength: 100 } },
  required: ["confirm"],
});

/** Compiled validators of `n` distinct schemas still alive afterwards; the validator is kept, as a host keeps it. */
async function compiledKept(validator: SchemaValidator, n: number, compile: (v: SchemaValidator, schema: JsonSchema) => unknown): Promise<number> {
  const retained = new Retained();
  for (let i = 0; i < n; i++) retained.watch((compile(validator, form(i)) as { validate?: object }).validate);
  expect(retained.watched).toBe(n);
  const alive = await retained.alive();
  // the validator is still in use (as a host's is), so what it keeps is kept
  expect(validator.forSchema({ type: "string" }).ok).toBe(true);
  return alive;
}

/**
 * What 600 and 1,600 compiles leave alive is bounded, whatever the count: the last MAX_COMPILED_SCHEMAS kept, plus at
 * most what the ajv instance the oldest of them came from still holds (a validator keeps its instance's compiled code
 * alive; instances are renewed every MAX_COMPILED_SCHEMAS compiles). Whether an old instance is still held after a
 * collection depends on which kept validator refers to what: a busy CI machine once left 601 alive of 1,600 where a
 * quiet one leaves ~500. The code before the bound kept every one (1,600).
 */
function expectBounded(few: number, many: number): void {
  expect(few).toBeLessThanOrEqual(2 * MAX_COMPILED_SCHEMAS + 3);
  expect(many).toBeLessThanOrEqual(2 * MAX_COMPILED_SCHEMAS + 3);
}

describe("compiled schemas are kept within a bound", () => {
  it("forSchema keeps the last MAX_COMPILED_SCHEMAS: 1,600 distinct forms leave no more compiled than two ajv instances hold", async () => {
    const forSchema = (v: SchemaValidator, s: JsonSchema) => v.forSchema(s);
    const few = await compiledKept(new SchemaValidator(), 600, forSchema);
    const many = await compiledKept(new SchemaValidator(), 1_600, forSchema);
    expectBounded(few, many);
  });

  it("compile (a workflow's parameters, on every run): 1,600 compiles leave no more compiled than two ajv instances hold", async () => {
    const compile = (v: SchemaValidator, s: JsonSchema) => v.compile(s);
    const few = await compiledKept(new SchemaValidator(), 600, compile);
    const many = await compiledKept(new SchemaValidator(), 1_600, compile);
    expectBounded(few, many);
  });

  it("a schema used again stays compiled (least recently used goes first), and one let go still validates", () => {
    const v = new SchemaValidator();
    const first = v.forSchema(form(0));
    for (let i = 1; i < MAX_COMPILED_SCHEMAS * 2; i++) {
      v.forSchema(form(i));
      expect(v.forSchema(form(0))).toBe(first);
    }
    const evicted = v.forSchema(form(1));
    for (let i = 2; i < MAX_COMPILED_SCHEMAS + 2; i++) v.forSchema(form(1_000_000 + i));
    expect(v.forSchema(form(1))).not.toBe(evicted);
    if (!first.ok || !evicted.ok) throw new Error("not compiled");
    expect(evicted.validate({ confirm: true })).toBe(true);
    expect(evicted.validate({ reason: "x" })).toBe(false);
  });

  it("a schema with an $id compiles every time (ajv refused the third: `schema with key or id … already exists`), and refers to itself", () => {
    const v = new SchemaValidator();
    const tree = {
      $id: "https://example.com/tree",
      type: "object",
      properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "https://example.com/tree" } } },
    };
    for (let i = 0; i < 5; i++) {
      const compiled = v.compile({ ...tree, description: `run ${i}` });
      expect(compiled).toMatchObject({ ok: true });
      if (!compiled.ok) return;
      expect(compiled.validate({ name: "a", children: [{ name: "b", children: [] }] })).toBe(true);
      expect(compiled.validate({ name: "a", children: [{ name: 2 }] })).toBe(false);
    }
  });

  it("a schema claiming a meta-schema's $id leaves the meta-schemas in place", () => {
    const v = new SchemaValidator();
    v.compile({ $id: "https://json-schema.org/draft/2020-12/schema", type: "object" });
    v.compile({ $schema: "http://json-schema.org/draft-07/schema#", $id: "http://json-schema.org/draft-07/schema#", type: "object" });
    for (const $schema of [undefined, "http://json-schema.org/draft-07/schema#"]) {
      expect(v.compile({ $schema, type: "object", properties: { a: { type: "string" } } })).toMatchObject({ ok: true });
      expect(v.check({ $schema, type: "object", properties: { a: { type: 3 } } })).toBeDefined();
      expect(v.check({ $schema, type: "object" })).toBeUndefined();
    }
  });
});
