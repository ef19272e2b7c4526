import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lookupPlaceholder, renderTemplate } from "../../core/render-template.js";

describe("renderTemplate", () => {
  it("substitutes a key", () => {
    expect(renderTemplate("Plugin says {topic}", { topic: "plugins" })).toEqual({ text: "Plugin says plugins", missing: [] });
  });

  it("keeps missing keys literal, unescapes braces, renders numbers as JSON, single pass", () => {
    const r = renderTemplate("hello {missing} {topic} {{lit}} n={n}", { topic: "{other}", n: 3 });
    expect(r.text).toBe("hello {missing} {other} {lit} n=3");
    expect(r.missing).toEqual(["missing"]);
  });

  it("interprets nothing else: prototype paths, indexing and format specs stay literal", () => {
    const r = renderTemplate("{topic.__proto__} {topic[0]} {topic:>6} {topic!r} {topic.constructor} {topic.length}", { topic: "plugins" });
    expect(r.text).toBe("{topic.__proto__} {topic[0]} {topic:>6} {topic!r} {topic.constructor} {topic.length}");
    expect(r.text).not.toContain("plugins");
  });

  it("formats values: strings as is, booleans/null as JSON text, objects and arrays as JSON", () => {
    const r = renderTemplate("{s}|{b}|{z}|{o}|{a}|{f}", { s: "x y", b: true, z: null, o: { k: [1, "2"] }, a: [1, { x: null }], f: 1.5 });
    expect(r.text).toBe('x y|true|null|{"k":[1,"2"]}|[1,{"x":null}]|1.5');
  });

  it("passes only substituted values through options.format; literal text and missing keys are untouched", () => {
    const r = renderTemplate("a {x} {{y}} {n} {missing}", { x: "v w", n: 2 }, { format: (v) => `<${typeof v}:${String(v)}>` });
    expect(r).toEqual({ text: "a <string:v w> {y} <number:2> {missing}", missing: ["missing"] });
  });

  it("follows dotted paths through own properties of nested objects only", () => {
    const values = { user: { name: "Ada", tags: ["a"] }, list: ["x"] } as Record<string, unknown>;
    expect(renderTemplate("{user.name} {user.tags} {list.0} {list.length} {user.toString} {user.hasOwnProperty}", values).text).toBe(
      'Ada ["a"] {list.0} {list.length} {user.toString} {user.hasOwnProperty}',
    );
  });

  it("renders unbalanced templates literally", () => {
    expect(renderTemplate("a {topic b } c {", { topic: "T" }).text).toBe("a {topic b } c {");
    expect(renderTemplate("{{{topic}}}", { topic: "T" }).text).toBe("{T}");
    expect(renderTemplate("}{topic}{", { topic: "T" }).text).toBe("}T{");
  });

  it("never invokes getters and never reads inherited properties", () => {
    let called = false;
    const values = Object.create({ inherited: "no" }) as Record<string, unknown>;
    Object.defineProperty(values, "g", { enumerable: true, get: () => ((called = true), "leak") });
    expect(renderTemplate("{inherited}{g}", values).text).toBe("{inherited}{g}");
    expect(called).toBe(false);
  });

  it("lookupPlaceholder refuses __proto__, constructor and prototype anywhere in the path", () => {
    const values = JSON.parse('{"a":{"__proto__":{"x":1},"prototype":2,"constructor":3},"b":1}') as Record<string, unknown>;
    expect(lookupPlaceholder(values, "a.__proto__.x").found).toBe(false);
    expect(lookupPlaceholder(values, "a.prototype").found).toBe(false);
    expect(lookupPlaceholder(values, "a.constructor").found).toBe(false);
    expect(lookupPlaceholder(values, "b")).toEqual({ found: true, value: 1 });
  });

  it("property: a value containing placeholders is never expanded again, and rendering never throws", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue()), (template, value, extra) => {
        const r = renderTemplate(template, { ...extra });
        expect(typeof r.text).toBe("string");
        expect(renderTemplate("{v}", { v: value }).text).toBe(value);
      }),
      { numRuns: 2000 },
    );
  });
});
