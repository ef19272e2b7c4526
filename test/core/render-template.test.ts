import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ManifestError } from "../../core/errors.js";
import { lookupPlaceholder, MAX_RENDERED_CHARS, renderTemplate } from "../../core/render-template.js";

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

  it("gives options.format the literal text since the previous value only, so a caller following the text reads it once", () => {
    const literals: string[] = [];
    const r = renderTemplate("a {x} {{y}} {missing} b {x}{x} c", { x: "v" }, { format: (v, literal) => (literals.push(literal), `<${String(v)}>`) });
    expect(literals).toEqual(["a ", " {y} {missing} b ", ""]);
    expect(r.text).toBe("a <v> {y} {missing} b <v><v> c");
    // Linear: 100,000 values are given 100,000 literal characters in all (the text so far, each time, was 10^10).
    let fed = 0;
    renderTemplate(" {x}".repeat(100_000), { x: "v" }, { format: (_v, literal) => ((fed += literal.length), "v") });
    expect(fed).toBe(100_000);
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

  it("refuses, before building it, a text longer than MAX_RENDERED_CHARS: a short value repeated by a hostile template", () => {
    // 1,100 × 4,000 characters: past the cap (an attacker's 1 MiB manifest and a 2,000-character argument make 600 million)
    const template = "{a}".repeat(1100);
    const render = () => renderTemplate(template, { a: "x".repeat(4000) });
    expect(render).toThrow(ManifestError);
    expect(render).toThrow(`more than ${MAX_RENDERED_CHARS} characters`);
    // literal text counts too, and a smaller cap may be asked for
    expect(() => renderTemplate("{{".repeat(20), {}, { maxChars: 10 })).toThrow("more than 10 characters");
    expect(renderTemplate("{a}".repeat(1000), { a: "x".repeat(4000) }).text).toHaveLength(4_000_000);
  });

  it("property: the same text and missing names as the straightforward scan, on brace-heavy templates", () => {
    const chars = fc.constantFrom("{", "}", "a", "b", ".", " ", "_");
    fc.assert(
      fc.property(fc.array(chars, { maxLength: 40 }), (list) => {
        const template = list.join("");
        const values = { a: "A", b: { a: 1 }, a_: "{a}" };
        expect(renderTemplate(template, values)).toEqual(straightforward(template, values));
      }),
      { numRuns: 3000 },
    );
  });
});

/** The renderer as it was first written (rescanning for the next brace at every `{`), as the reference. */
function straightforward(template: string, values: Record<string, unknown>): { text: string; missing: string[] } {
  const missing: string[] = [];
  let text = "";
  let i = 0;
  while (i < template.length) {
    const ch = template[i]!;
    if ((ch === "{" || ch === "}") && template[i + 1] === ch) {
      text += ch;
      i += 2;
    } else if (ch === "{") {
      const close = template.indexOf("}", i + 1);
      const open = template.indexOf("{", i + 1);
      const name = close > i && (open === -1 || open > close) ? template.slice(i + 1, close) : undefined;
      if (name === undefined || !/^[A-Za-z0-9_$-]+(?:\.[A-Za-z0-9_$-]+)*$/.test(name)) {
        text += "{";
        i += 1;
        continue;
      }
      const hit = lookupPlaceholder(values, name);
      if (hit.found) text += typeof hit.value === "string" ? hit.value : JSON.stringify(hit.value);
      else {
        text += `{${name}}`;
        if (!missing.includes(name)) missing.push(name);
      }
      i = close + 1;
    } else {
      text += ch;
      i += 1;
    }
  }
  return { text, missing };
}
