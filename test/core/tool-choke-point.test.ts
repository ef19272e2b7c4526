import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** Source folders that run tools (examples, bench and tests may drive servers directly). */
const FOLDERS = ["core", "manifests", "plugins", "runtimes", "bin", "lib"];

/**
 * Ways to run a tool without the pipeline: touching a ToolDefinition's `execute` at all (calling
 * it, passing it on, call/apply/bind, computed key) or an MCP server's `callTool`. Reading the
 * member is enough to be flagged: a function taken out of a tool can be called from anywhere.
 */
const BYPASSES: { what: string; pattern: RegExp }[] = [
  { what: "a tool's execute", pattern: /\.\s*execute\b|[\w$)\]]\s*\[\s*["'`]execute["'`]\s*\]/g },
  { what: "an MCP server's callTool", pattern: /\.\s*callTool\b|[\w$)\]]\s*\[\s*["'`]callTool["'`]\s*\]/g },
];

/** The only places allowed to do so, how often, and why. A new entry (or a higher count) needs a reason a reviewer accepts. */
const ALLOWED: Record<string, { uses: number; reason: string }> = {
  "core/run-tool-intent.ts": { uses: 1, reason: "the pipeline itself: its execute phase calls ToolCall.execute once every earlier phase passed" },
  "core/tool-call.ts": { uses: 1, reason: "ToolCall.execute runs tool.execute: reached only from the pipeline's execute phase" },
  "runtimes/mcp/server-tools.ts": {
    uses: 1,
    reason: "the execute of a registered mcp__server__tool calls McpConnection.callTool: it only runs inside the pipeline's execute phase",
  },
  "plugins/code-plugin-tool.ts": {
    uses: 2,
    reason:
      "a code plugin's tool: registerTool checks that execute is a function, and the registered ToolDefinition's execute calls it, so it only runs inside the pipeline's execute phase",
  },
  "runtimes/mcp/tool-request.ts": {
    uses: 1,
    reason: "the SDK client's callTool, sent for McpConnection.callTool (reached only from server-tools.ts)",
  },
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /\.(ts|js|mjs)$/.test(e.name) && !e.name.endsWith(".d.ts") ? [path] : [];
  });
}

describe("one choke point: no code path runs a tool outside runToolIntent", () => {
  it("only the allow-listed files use a tool's execute or an MCP server's callTool", () => {
    const offenders: string[] = [];
    const uses: Record<string, number> = {};
    for (const file of FOLDERS.flatMap((f) => sources(join(ROOT, f)))) {
      const rel = relative(ROOT, file).split("\\").join("/");
      const text = readFileSync(file, "utf8");
      for (const { what, pattern } of BYPASSES) {
        for (const m of text.matchAll(pattern)) {
          if (ALLOWED[rel]) {
            uses[rel] = (uses[rel] ?? 0) + 1;
            continue;
          }
          const line = text.slice(0, m.index).split("\n").length;
          offenders.push(
            `${rel}:${line} uses ${what} (${m[0].trim()}) outside the pipeline: go through host.runTool(...) instead, so visibility, validation, hooks, blocks, permissions and approval apply.`,
          );
        }
      }
    }
    expect(offenders).toEqual([]);
    // Allowed files are held to their exact count: a new use there needs review too, and a stale entry is removed.
    expect(uses).toEqual(Object.fromEntries(Object.entries(ALLOWED).map(([file, a]) => [file, a.uses])));
  });
});
