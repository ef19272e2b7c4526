import { describe, expect, it } from "vitest";
import { SchemaValidator } from "../../core/validation.js";

const tuple = {
  type: "object",
  properties: { pair: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }], items: false } },
  required: ["pair"],
};

describe("JSON Schema dialects", () => {
  it("reads a schema without $schema as 2020-12: prefixItems with items: false", () => {
    const compiled = new SchemaValidator().compile(tuple);
    expect(compiled.ok).toBe(true);
    if (!compiled.ok) return;
    expect(compiled.validate({ pair: ["a", 1] })).toBe(true);
    expect(compiled.validate({ pair: ["a", "b"] })).toBe(false);
    expect(compiled.validate({ pair: ["a", 1, 2] })).toBe(false);
  });

  it("reads draft-07 only when $schema declares it (prefixItems is then an unknown keyword)", () => {
    const compiled = new SchemaValidator().compile({ $schema: "http://json-schema.org/draft-07/schema#", ...tuple });
    expect(compiled.ok).toBe(true);
    if (!compiled.ok) return;
    // draft-07: `items: false` forbids every element, prefixItems means nothing.
    expect(compiled.validate({ pair: ["a", 1] })).toBe(false);
    expect(compiled.validate({ pair: [] })).toBe(true);
  });

  it("still accepts a legacy array-form items schema without $schema (draft-07 tuple)", () => {
    const compiled = new SchemaValidator().compile({ type: "array", items: [{ type: "string" }] });
    expect(compiled.ok).toBe(true);
  });

  it("sends ajv warnings to the sink once each, not to the console", () => {
    const warnings: string[] = [];
    const v = new SchemaValidator((m) => warnings.push(m));
    const schema = { type: "object", properties: { body: { type: "string", format: "json" } } };
    const original = console.warn;
    const consoleCalls: unknown[] = [];
    console.warn = (...args: unknown[]) => consoleCalls.push(args);
    try {
      expect(v.compile(schema).ok).toBe(true);
      expect(v.compile({ ...schema, title: "again" }).ok).toBe(true);
    } finally {
      console.warn = original;
    }
    expect(consoleCalls).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/unknown format "json"/);
  });
});

describe("schema checks without compiling", () => {
  it("accept what either dialect accepts and report the 2020-12 problem otherwise", () => {
    const v = new SchemaValidator();
    expect(v.check({ type: "array", prefixItems: [{ type: "string" }], items: false })).toBeUndefined();
    expect(v.check({ type: "array", items: [{ type: "string" }] })).toBeUndefined();
    expect(v.check({ type: "object", properties: { a: { type: "no-such-type" } } })).toMatch(/schema\/properties\/a\/type/);
  });
});
