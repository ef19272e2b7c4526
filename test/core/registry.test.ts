import { describe, expect, it } from "vitest";
import { Diagnostics } from "../../core/diagnostics.js";
import { ToolRegistry } from "../../core/registry.js";
import type { ToolDefinition, ToolSource } from "../../core/types.js";

function tool(name: string, source: ToolSource = { kind: "builtin", id: "core" }): ToolDefinition {
  return {
    name,
    description: `${name} from ${source.kind}:${source.id}`,
    inputSchema: { type: "object" },
    source,
    risk: ["read"],
    readOnly: true,
    execute: async () => ({ content: `${name}:${source.id}` }),
  };
}

describe("ToolRegistry", () => {
  it("keeps the first registration of a duplicate name and reports the second", () => {
    const diagnostics = new Diagnostics();
    const reg = new ToolRegistry(diagnostics);
    expect(reg.register(tool("read_file"))).toBe(true);
    expect(reg.register(tool("read_file", { kind: "mcp", id: "fs" }))).toBe(false);
    expect(reg.get("read_file")!.source.kind).toBe("builtin");
    expect(diagnostics.items).toHaveLength(1);
    expect(diagnostics.items[0]).toMatchObject({ severity: "error", source: "registry" });
    expect(diagnostics.items[0]!.message).toContain("mcp:fs");
    expect(diagnostics.items[0]!.message).toContain("already taken by builtin");
  });

  it("lists tools in code-unit order of their names, whatever the locale (digits < uppercase < _ < lowercase)", () => {
    const reg = new ToolRegistry(new Diagnostics());
    for (const name of ["b", "a_1", "B", "a1", "mcp__z__x", "mcp_list"]) reg.register(tool(name));
    expect(reg.listing().map((t) => t.name)).toEqual(["B", "a1", "a_1", "b", "mcp__z__x", "mcp_list"]);
  });

  it("rejects empty names and names with spaces", () => {
    const diagnostics = new Diagnostics();
    const reg = new ToolRegistry(diagnostics);
    expect(reg.register(tool(""))).toBe(false);
    expect(reg.register(tool("two words"))).toBe(false);
    expect(reg.list()).toHaveLength(0);
    expect(diagnostics.items).toHaveLength(2);
  });

  it("rejects the same names for aliases as for tools", () => {
    const diagnostics = new Diagnostics();
    const reg = new ToolRegistry(diagnostics);
    reg.register(tool("read_file"));
    const plugin: ToolSource = { kind: "plugin", id: "p" };
    expect(reg.addAlias({ name: "", target: "read_file", source: plugin })).toBe(false);
    expect(reg.addAlias({ name: "read it", target: "read_file", source: plugin })).toBe(false);
    expect(reg.listAliases()).toHaveLength(0);
    expect(diagnostics.items.map((d) => d.message)).toEqual([
      expect.stringMatching(/^Alias name "" from plugin:p is invalid/),
      expect.stringMatching(/^Alias name "read it" from plugin:p is invalid/),
    ]);
  });

  it("resolves aliases (and alias chains) to the base tool and lists them with the base schema", () => {
    const diagnostics = new Diagnostics();
    const reg = new ToolRegistry(diagnostics);
    reg.register({ ...tool("read_file"), inputSchema: { type: "object", required: ["path"] } });
    const plugin: ToolSource = { kind: "plugin", id: "p" };
    expect(reg.addAlias({ name: "Read", target: "read_file", source: plugin })).toBe(true);
    expect(reg.addAlias({ name: "cat", target: "Read", source: plugin, description: "cat a file" })).toBe(true);
    const r = reg.resolve("cat")!;
    expect(r.tool.name).toBe("read_file");
    expect(r.alias!.name).toBe("cat");
    expect(r.name).toBe("cat");
    expect(reg.resolve("read_file")!.alias).toBeUndefined();
    const row = reg.listing().find((t) => t.name === "cat")!;
    expect(row).toMatchObject({ aliasOf: "read_file", description: "cat a file", inputSchema: { required: ["path"] } });
    // an alias to a missing tool, or over a taken name, is refused with a diagnostic
    expect(reg.addAlias({ name: "x", target: "nope", source: plugin })).toBe(false);
    expect(reg.addAlias({ name: "read_file", target: "Read", source: plugin })).toBe(false);
    expect(diagnostics.items.map((d) => d.message).join("\n")).toMatch(/base tool "nope" does not exist[\s\S]*already taken/);
    expect(reg.resolve("nope")).toBeUndefined();
  });

  it("removes every tool and alias of one source, leaving others", () => {
    const reg = new ToolRegistry(new Diagnostics());
    const fs: ToolSource = { kind: "mcp", id: "fs" };
    const git: ToolSource = { kind: "mcp", id: "git" };
    reg.register(tool("read_file"));
    reg.register(tool("mcp__fs__read", fs));
    reg.register(tool("mcp__fs__write", fs));
    reg.register(tool("mcp__git__log", git));
    reg.addAlias({ name: "fsread", target: "mcp__fs__read", source: fs });
    const v = reg.version;
    expect(reg.removeBySource("mcp", "fs").sort()).toEqual(["fsread", "mcp__fs__read", "mcp__fs__write"]);
    expect(reg.version).toBeGreaterThan(v);
    expect(reg.list().map((t) => t.name)).toEqual(["read_file", "mcp__git__log"]);
    expect(reg.has("fsread")).toBe(false);
    expect(reg.removeBySource("mcp", "fs")).toEqual([]);
    // the name is free again
    expect(reg.register(tool("mcp__fs__read", fs))).toBe(true);
  });
});
