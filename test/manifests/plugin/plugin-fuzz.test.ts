import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadPluginFiles } from "../../../manifests/plugin/load-plugin-files.js";
import type { PluginFs } from "../../../manifests/plugin/plugin-fs.js";
import { parsePluginManifest } from "../../../manifests/plugin/parse-plugin-manifest.js";

/** An in-memory file system holding generated manifests (the loader's injected I/O). */
function memoryFs(files: Map<string, string>): PluginFs {
  return {
    subdirs: () => [],
    isFile: (p) => files.has(p),
    exists: (p) => files.has(p),
    readText: (p) => {
      const t = files.get(p);
      if (t === undefined) throw Object.assign(new Error("ENOENT"), { code: "ENOENT" });
      return t;
    },
    realpath: (p) => p,
    list: () => [],
  };
}

const text = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("", "  ", "read_file", "bash", "*", "__proto__", "constructor", "{x}", "a b"));
const anyJson = fc.jsonValue({ maxDepth: 3 });
const field = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: arb }, { weight: 1, arbitrary: anyJson });
const alias = fc.record({ name: field(text), base_tool: field(text), baseTool: field(text), description: field(text) }, { requiredKeys: [] });
const virtual = fc.record(
  {
    name: field(text),
    description: field(text),
    response_template: field(text),
    response: field(text),
    parameters: field(fc.constant({ type: "object" })),
    metadata: field(fc.dictionary(text, anyJson)),
  },
  { requiredKeys: [] },
);
const hookValue = fc.oneof(
  text,
  fc.record({ beforeTool: field(text), afterResult: field(text), blockMessage: field(text), block_message: field(text) }, { requiredKeys: [] }),
  anyJson,
);
const manifest = fc.record(
  {
    name: field(text),
    version: field(text),
    description: field(text),
    tool_aliases: field(fc.array(field(alias), { maxLength: 4 })),
    toolAliases: field(fc.array(alias, { maxLength: 2 })),
    virtual_tools: field(fc.array(field(virtual), { maxLength: 4 })),
    blocked_tools: field(fc.array(field(text), { maxLength: 3 })),
    tool_hooks: field(fc.dictionary(text, hookValue, { maxKeys: 3 })),
    hooks: field(
      fc.dictionary(
        fc.oneof(text, fc.constantFrom("beforePrompt", "after_turn", "PreToolUse", "onResume")),
        fc.oneof(text, fc.array(field(text), { maxLength: 3 })),
        { maxKeys: 4 },
      ),
    ),
    mcpServers: field(fc.oneof(fc.dictionary(text, anyJson, { maxKeys: 2 }), text)),
    workflows: field(fc.oneof(fc.array(anyJson, { maxLength: 2 }), text)),
  },
  { requiredKeys: [] },
);
const fileText = fc.oneof(
  { weight: 6, arbitrary: manifest.map((m) => JSON.stringify(m)) },
  { weight: 1, arbitrary: fc.string() },
  { weight: 1, arbitrary: anyJson.map((v) => JSON.stringify(v)) },
);

describe("plugin manifest fuzz", () => {
  it("thousands of random manifests never crash discovery and always yield a plugin or a diagnostic naming the file", () => {
    fc.assert(
      fc.property(fc.array(fileText, { minLength: 1, maxLength: 4 }), (texts) => {
        const files = new Map(texts.map((t, i) => [`/ws/plugins/p${i}/plugin.json`, t]));
        const list = [...files.keys()].map((path) => ({
          path,
          realPath: path,
          root: path.replace(/\/plugin\.json$/, ""),
          level: "project" as const,
          layout: "keel" as const,
        }));
        const result = loadPluginFiles(list, memoryFs(files));
        for (const { path } of list) {
          const loaded = result.plugins.some((p) => p.manifestPath === path);
          const failed = result.failed.some((f) => f.file === path && f.diagnostics.length > 0);
          expect(loaded !== failed).toBe(true);
        }
        for (const d of result.diagnostics) {
          expect(d.source).toBe("plugin");
          expect(typeof d.message).toBe("string");
          expect(files.has(d.file!)).toBe(true);
        }
        for (const p of result.plugins) {
          expect(p.manifest.name.trim()).toBe(p.manifest.name);
          expect(p.manifest.name).not.toBe("");
          for (const a of p.manifest.aliases) expect(a.name).not.toMatch(/\s/);
        }
      }),
      { numRuns: 1500 },
    );
  });

  it("a manifest whose every field has the wrong type still loads by name with one diagnostic per field", () => {
    const parsed = parsePluginManifest({
      name: "x",
      version: [],
      description: {},
      tool_aliases: 1,
      virtual_tools: "s",
      blocked_tools: {},
      tool_hooks: [],
      hooks: 5,
    });
    expect(parsed.manifest?.name).toBe("x");
    expect(parsed.issues.map((i) => i.path).sort()).toEqual([
      "blocked_tools",
      "description",
      "hooks",
      "tool_aliases",
      "tool_hooks",
      "version",
      "virtual_tools",
    ]);
  });
});
