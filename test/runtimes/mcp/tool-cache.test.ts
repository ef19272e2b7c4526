import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readJsonState } from "../../../core/index.js";
import type { McpServerConfig } from "../../../manifests/mcp/mcp-server-config.js";
import { type CacheFile, ToolCache } from "../../../runtimes/mcp/tool-cache.js";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const server = (name: string) => ({ name, transport: "stdio", command: "node", args: [`${name}.js`], env: {}, secrets: [] }) as unknown as McpServerConfig;
const tool = (name: string) => ({ name, description: `${name} tool`, inputSchema: { type: "object" } });

describe("ToolCache (real files)", () => {
  it("reads and parses the file once for every server's entry, and serves what it wrote since without reading again", async () => {
    dir = mkdtempSync(join(tmpdir(), "keel-cache-"));
    const file = join(dir, "tool-cache.json");
    // Two processes' caches on one file: `writer` fills it, `reader` counts its reads of the real file.
    const writer = new ToolCache(file);
    await writer.put(server("a"), [tool("echo")]);
    await writer.put(server("b"), [tool("add")], "b's instructions");
    let reads = 0;
    const reader = new ToolCache(file, undefined, (f) => {
      reads++;
      return readJsonState<CacheFile>(f, { servers: {} });
    });
    const entries = await Promise.all(["a", "b", "c"].map((n) => reader.entry(server(n))));
    expect(entries.map((e) => e?.tools.map((t) => t.name))).toEqual([["echo"], ["add"], undefined]);
    expect(entries[1]?.instructions).toBe("b's instructions");
    expect(reads).toBe(1);

    // A write reads the file anew (another process may have added servers) and is what later lookups see.
    await writer.put(server("d"), [tool("sum")]);
    await reader.put(server("c"), [tool("now")]);
    expect(reads).toBe(2);
    expect((await reader.get(server("c")))?.map((t) => t.name)).toEqual(["now"]);
    expect((await reader.get(server("d")))?.map((t) => t.name)).toEqual(["sum"]);
    expect(reads).toBe(2);
    const onDisk = JSON.parse(readFileSync(file, "utf8")) as CacheFile;
    expect(Object.keys(onDisk.servers).sort()).toEqual(["a", "b", "c", "d"]);
  });

  it("a cache file that cannot be parsed, or is not a cache, reads as empty and is never overwritten", async () => {
    dir = mkdtempSync(join(tmpdir(), "keel-cache-"));
    const file = join(dir, "tool-cache.json");
    for (const text of ["{not json", "[1,2]", '{"servers": 7}']) {
      writeFileSync(file, text);
      const cache = new ToolCache(file);
      expect(await cache.get(server("a"))).toBeUndefined();
      await cache.put(server("a"), [tool("echo")]);
      expect(readFileSync(file, "utf8")).toBe(text);
    }
  });
});
