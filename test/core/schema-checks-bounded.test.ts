import { writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { describeSchemaErrors, MAX_DESCRIBED_PROBLEMS, SchemaValidator } from "../../core/validation.js";
import { runKeelProcess } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

describe("uniqueItems", () => {
  let ws: TempWorkspace | undefined;
  afterEach(() => {
    ws?.cleanup();
    ws = undefined;
  });

  it("means what ajv's means: equal JSON values whatever their keys' order, and names the same two items", () => {
    for (const $schema of [undefined, "http://json-schema.org/draft-07/schema#"]) {
      const compiled = new SchemaValidator().compile({ ...($schema ? { $schema } : {}), type: "array", uniqueItems: true });
      expect(compiled.ok).toBe(true);
      if (!compiled.ok) return;
      const v = compiled.validate;
      expect(v([1, "1", [1], { a: 1 }, { a: "1" }, null, true, 1.5, [1, 2], [2, 1]])).toBe(true);
      expect(v([{ a: 1, b: [1, { c: 2, d: 3 }] }, 3, { b: [1, { d: 3, c: 2 }], a: 1 }])).toBe(false);
      expect(describeSchemaErrors(v.errors, [])).toEqual(["the input must NOT have duplicate items (items ## 0 and 2 are identical)"]);
      expect(v([1, 2, 1.0])).toBe(false);
      expect(v([{ a: 1 }, [2], { a: 1 }, [2], 7])).toBe(false);
      expect(describeSchemaErrors(v.errors, [])).toEqual(["the input must NOT have duplicate items (items ## 1 and 3 are identical)"]);
      expect(v([[], {}])).toBe(true);
    }
    const off = new SchemaValidator().compile({ type: "array", uniqueItems: false });
    expect(off.ok && off.validate([1, 1])).toBe(true);
  });

  it("checks 50,000 items against a hostile schema's 100,000-value enum by lookup: the call finishes", async () => {
    // ajv compared each item with every value: 5 × 10^9 comparisons, 13 seconds uninterruptibly (a safety net: no wall-clock assertion).
    const manifest = {
      name: "picks",
      virtual_tools: [
        {
          name: "pick_doc",
          description: "picks",
          response_template: "ok",
          parameters: { type: "object", properties: { t: { type: "array", items: { enum: Array.from({ length: 100_000 }, (_, i) => i) } } } },
        },
      ],
    };
    // written compact: 100,000 values fit in a 1 MiB manifest
    ws = makeWorkspace({ ".claw-plugin/plugin.json": JSON.stringify(manifest) });
    const file = ws.path("input.json");
    writeFileSync(file, JSON.stringify({ t: Array.from({ length: 50_000 }, () => 99_999) }));
    const call = await runKeelProcess(["--json", "call", "pick_doc", "--input-file", file], { cwd: ws.root, env: ws.env });
    expect(call.json()).toMatchObject({ ok: true, content: "ok" });
  }, 120_000);

  it("checks 100,000 object items a hostile schema asks to be unique in linear time: the call finishes", async () => {
    // ajv compared every pair: 20,000 items took 20 seconds, 100,000 more than eight minutes, uninterruptibly.
    ws = makeWorkspace({
      ".claw-plugin/plugin.json": {
        name: "sets",
        virtual_tools: [
          {
            name: "set_doc",
            description: "a set",
            response_template: "ok",
            parameters: { type: "object", properties: { t: { type: "array", uniqueItems: true } } },
          },
        ],
      },
    });
    const file = ws.path("input.json");
    writeFileSync(file, JSON.stringify({ t: Array.from({ length: 100_000 }, (_, i) => [i]) }));
    const call = await runKeelProcess(["--json", "call", "set_doc", "--input-file", file], { cwd: ws.root, env: ws.env });
    expect(call.json()).toMatchObject({ ok: true, content: "ok" });
    writeFileSync(file, JSON.stringify({ t: [...Array.from({ length: 100_000 }, (_, i) => ({ i })), { i: 5 }] }));
    const dup = await runKeelProcess(["--json", "call", "set_doc", "--input-file", file], { cwd: ws.root, env: ws.env });
    expect(dup.json()).toMatchObject({ ok: false, phase: "validate", code: "schema_invalid" });
    expect(dup.json<{ content: string }>().content).toContain("items ## 5 and 100000 are identical");
  }, 120_000);
});

describe("enum", () => {
  it("means what ajv's means, short or long (a long one is a set lookup: 100,000 items against 100,000 values were 10^10 comparisons)", () => {
    for (const extra of [0, 100]) {
      const values = [{ a: 1, b: [2, { c: 3 }] }, [1], "1", null, 1.5, ...Array.from({ length: extra }, (_, i) => `v${i}`)];
      const compiled = new SchemaValidator().compile({ type: "array", items: { enum: values } });
      expect(compiled.ok).toBe(true);
      if (!compiled.ok) return;
      const v = compiled.validate;
      expect(v([{ b: [2, { c: 3 }], a: 1 }, [1], "1", null, 1.5, ...(extra ? ["v99"] : [])])).toBe(true);
      for (const bad of [1, [[1]], { a: 1 }, "v100", 1.6, { a: 1, b: [{ c: 3 }, 2] }]) expect(v([bad]), JSON.stringify(bad)).toBe(false);
      expect(describeSchemaErrors(v.errors, [])[0]).toMatch(/^`0` must be one of \[\{"a":1/);
    }
  });
});

describe("describeSchemaErrors", () => {
  it("describes at most 20 problems and lists at most 20 of an enum's values: a hostile schema cannot make the message gigabytes", () => {
    // 20,000 items each outside a 40,000-value enum were 20,000 copies of the list: keel ran out of memory.
    const values = Array.from({ length: 100 }, (_, i) => `v${i}`);
    const compiled = new SchemaValidator().compile({ type: "object", properties: { a: { type: "array", items: { enum: values } } } });
    expect(compiled.ok).toBe(true);
    if (!compiled.ok) return;
    const input = { a: Array.from({ length: 50 }, () => 0) };
    expect(compiled.validate(input)).toBe(false);
    const problems = describeSchemaErrors(compiled.validate.errors, input);
    expect(problems).toHaveLength(MAX_DESCRIBED_PROBLEMS + 1);
    expect(problems[0]).toBe(`\`a.0\` must be one of ${JSON.stringify(values.slice(0, 20)).slice(0, -1)}, …] (100 values in all; see the schema)`);
    expect(problems.at(-1)).toBe("… and 30 more problems (the first 20 are described)");
    const long = new SchemaValidator().compile({ type: "string", pattern: `^(${"x".repeat(5000)})$` });
    expect(long.ok && !long.validate("y") && describeSchemaErrors(long.validate.errors, "y")[0]!.length).toBeLessThan(1100);
  });
});
