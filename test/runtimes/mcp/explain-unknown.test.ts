import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import type { TempWorkspace } from "../../helpers/temp-workspace.js";
import { mcpToolName } from "../../../runtimes/mcp/tool-names.js";
import { FAULT, mcpWorkspace, nodeServer } from "./mcp-test-kit.js";

const EXITS = { command: process.execPath, args: ["-e", "process.exit(3)"] };

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

async function unknown(tool: string, trust: boolean): Promise<string> {
  const r = await runKeel([...(trust ? ["--trust"] : []), "--json", "call", tool], { cwd: ws!.root, env: ws!.env });
  expect(r.json()).toMatchObject({ ok: false, code: "unknown_tool" });
  return r.json().content as string;
}

describe("an unknown mcp__ name names the servers it may belong to", () => {
  it("mcp__a__b__x is a__b's (or a's): with a up and a__b failed, the failed a__b is named", async () => {
    ws = mcpWorkspace({ a: nodeServer(FAULT, ["ok"]), a__b: EXITS });
    const content = await unknown("mcp__a__b__x", true);
    expect(content).toContain('MCP server "a__b" did not start');
    expect(content).not.toContain('MCP server "a" ');
  });

  it("untrusted, both servers a name fits are named, not only the first", async () => {
    ws = mcpWorkspace({ a: nodeServer(FAULT, ["ok"]), a__b: EXITS });
    const content = await unknown("mcp__a__b__x", false);
    expect(content).toContain('MCP server "a" is defined by this untrusted workspace');
    expect(content).toContain('MCP server "a__b" is defined by this untrusted workspace');
  });

  it("a name cut to 64 characters after a long shared prefix names every failed server it fits, and no other", async () => {
    const long = "warehouse-analytics-production-eu-west-1-primary-replica";
    ws = mcpWorkspace({ [`${long}-one`]: EXITS, [`${long}-two`]: EXITS, other: EXITS });
    const name = mcpToolName(`${long}-two`, "query");
    expect(name).toHaveLength(64);
    const content = await unknown(name, true);
    expect(content).toContain(`MCP server "${long}-one" did not start`);
    expect(content).toContain(`MCP server "${long}-two" did not start`);
    expect(content).not.toContain('"other"');
  });
});
