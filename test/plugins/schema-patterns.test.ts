import { afterEach, describe, expect, it } from "vitest";
import { SchemaValidator } from "../../core/validation.js";
import { runKeel, runKeelProcess } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

/** A pattern that backtracks exponentially in JavaScript's engine on `aaa…ab`. */
const CATASTROPHIC = "^(a+)+$";

describe("JSON Schema patterns a workspace plugin writes", () => {
  let ws: TempWorkspace | undefined;
  afterEach(() => {
    ws?.cleanup();
    ws = undefined;
  });

  it("cannot hang keel: a catastrophic pattern in a virtual tool's parameters is checked in linear time", async () => {
    ws = makeWorkspace({
      ".claw-plugin/plugin.json": {
        name: "redos",
        virtual_tools: [
          {
            name: "lookup_doc",
            description: "Look up a document",
            response_template: "doc {id}",
            parameters: { type: "object", properties: { id: { type: "string", pattern: CATASTROPHIC } }, required: ["id"] },
          },
        ],
      },
    });
    // With JavaScript's RegExp this input takes about 2^60 steps: the process never answers.
    const input = JSON.stringify({ id: `${"a".repeat(60)}b` });
    const bad = await runKeelProcess(["--json", "call", "lookup_doc", "--input", input], { cwd: ws.root, env: ws.env });
    expect(bad.exitCode).toBe(1);
    expect(bad.json()).toMatchObject({ ok: false, phase: "validate", code: "schema_invalid" });
    const good = await runKeel(["--json", "call", "lookup_doc", "--input", '{"id":"aaa"}'], { cwd: ws.root, env: ws.env });
    expect(good.json()).toMatchObject({ ok: true, content: "doc aaa" });
  });

  it("a pattern RE2 cannot run (lookahead) makes the schema uncompilable: the virtual tool is refused, naming the pattern", async () => {
    ws = makeWorkspace({
      ".claw-plugin/plugin.json": {
        name: "lookahead",
        virtual_tools: [
          {
            name: "peek",
            description: "lookahead pattern",
            response_template: "x {id}",
            parameters: { type: "object", properties: { id: { type: "string", pattern: "^(?=a)(a+)+$" } } },
          },
        ],
      },
    });
    const call = await runKeel(["--json", "call", "peek", "--input", '{"id":"aaa"}'], { cwd: ws.root, env: ws.env });
    expect(call.exitCode).toBe(1);
    expect(call.json()).toMatchObject({ ok: false, phase: "validate", code: "precondition_failed" });
    expect(call.json().content).toContain("lookahead");
  });
});

describe("SchemaValidator patterns (RE2)", () => {
  it("keeps JavaScript syntax RE2 spells differently: \\uXXXX, named groups, [^]", () => {
    const v = new SchemaValidator();
    const compiled = v.compile({
      type: "object",
      properties: { ascii: { type: "string", pattern: "^[\\u0000-\\u007F]*$" }, named: { type: "string", pattern: "^(?<word>\\w+)$" } },
      patternProperties: { "^x-": { type: "string" } },
    });
    expect(compiled.ok).toBe(true);
    if (!compiled.ok) return;
    expect(compiled.validate({ ascii: "plain", named: "word" })).toBe(true);
    expect(compiled.validate({ ascii: "naïve" })).toBe(false);
    expect(compiled.validate({ named: "two words" })).toBe(false);
    expect(compiled.validate({ "x-a": 1 })).toBe(false);
  });

  it("never confuses two patterns (ajv shares compiled patterns by their text)", () => {
    const v = new SchemaValidator();
    const a = v.compile({ type: "string", pattern: "^a+$" });
    const b = v.compile({ type: "string", pattern: "^b+$" });
    expect(a.ok && b.ok).toBe(true);
    if (!a.ok || !b.ok) return;
    expect(a.validate("aaa")).toBe(true);
    expect(b.validate("aaa")).toBe(false);
    expect(b.validate("bb")).toBe(true);
  });

  it("gives ., \\s and \\S their JavaScript meaning: one line stays one line, a no-break space is a space", () => {
    const v = new SchemaValidator();
    const cases: [string, string][] = [
      ["^.*$", "a\rb"],
      ["^.*$", "a\u2028b"],
      ["^.*$", "one line"],
      ["^.$", "😀"],
      ["^[.]$", "x"],
      ["^a\\.$", "ax"],
      ["^\\S+$", "a\u00a0b"],
      ["^\\S+$", "a\vb"],
      ["^\\S+$", "a😀b"],
      ["^\\S$", "\ufeff"],
      ["^\\s$", "\u3000"],
      ["^[^\\s]+$", "a\u202fb"],
      ["^[^\\S]$", " "],
      ["^[\\s\\S]+$", "a\nb"],
      ["^[^]+$", "a\nb"],
    ];
    for (const [pattern, input] of cases) {
      const compiled = v.compile({ type: "string", pattern });
      expect(compiled.ok, pattern).toBe(true);
      if (!compiled.ok) continue;
      expect(compiled.validate(input), `${pattern} on ${JSON.stringify(input)}`).toBe(new RegExp(pattern, "u").test(input));
    }
  });

  it("a virtual tool's one-line pattern refuses a carriage return (RE2's . matched it)", async () => {
    const ws = makeWorkspace({
      ".claw-plugin/plugin.json": {
        name: "oneline",
        virtual_tools: [
          {
            name: "set_title",
            description: "Set a title",
            response_template: "title {title}",
            parameters: { type: "object", properties: { title: { type: "string", pattern: "^.+$" } }, required: ["title"] },
          },
        ],
      },
    });
    try {
      const bad = await runKeel(["--json", "call", "set_title", "--input", JSON.stringify({ title: "ok\rInjected: yes" })], { cwd: ws.root, env: ws.env });
      expect(bad.json()).toMatchObject({ ok: false, phase: "validate", code: "schema_invalid" });
      const good = await runKeel(["--json", "call", "set_title", "--input", '{"title":"fine"}'], { cwd: ws.root, env: ws.env });
      expect(good.json()).toMatchObject({ ok: true, content: "title fine" });
    } finally {
      ws.cleanup();
    }
  });
});
