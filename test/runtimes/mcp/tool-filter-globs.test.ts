import { describe, expect, it } from "vitest";
import type { McpConnection } from "../../../runtimes/mcp/mcp-connection.js";
import { filterTools } from "../../../runtimes/mcp/server-tools.js";
import type { McpToolInfo } from "../../../runtimes/mcp/tool-cache.js";

/** filterTools reads only `config.enabledTools` / `config.disabledTools` of a connection: a plain object stands in for one (no server is needed to decide by name). */
function names(config: { enabledTools?: string[]; disabledTools?: string[] }, tools: string[]): string[] {
  const conn = { config } as unknown as McpConnection;
  return filterTools(
    conn,
    tools.map((name) => ({ name, inputSchema: { type: "object" } }) as McpToolInfo),
  ).map((t) => t.name);
}

describe("enabledTools / disabledTools from a workspace .mcp.json", () => {
  const LONG = "a".repeat(40);
  const BOMB = `*${"a*".repeat(14)}b`;

  it("match in bounded time: a backtracking-bomb glob against a long tool name answers", () => {
    expect(names({ disabledTools: [BOMB] }, [LONG, `${LONG}b`])).toEqual([LONG]);
    expect(names({ enabledTools: [BOMB] }, [LONG, `${LONG}b`])).toEqual([`${LONG}b`]);
  });

  it("keep picomatch's meaning for documented globs", () => {
    expect(names({ enabledTools: ["read_*", "{list,stat}"], disabledTools: ["*_secret"] }, ["read_a", "read_secret", "list", "stat", "write"])).toEqual([
      "read_a",
      "list",
      "stat",
    ]);
  });

  it("fail closed on a glob keel cannot match in bounded time: it enables nothing and disables everything", () => {
    expect(names({ enabledTools: ["!(x)"] }, ["x", "y"])).toEqual([]);
    expect(names({ disabledTools: ["!(x)"] }, ["x", "y"])).toEqual([]);
  });
});
