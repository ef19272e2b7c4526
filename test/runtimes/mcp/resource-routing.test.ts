import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { nodeServer } from "./mcp-test-kit.js";

const RESOURCES = fileURLToPath(new URL("./fixtures/resource-server.mjs", import.meta.url));

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

describe("mcp_read_resource without `server`", () => {
  it("asks only the server that lists the URI (or a template matching it): a server listed first neither sees nor answers for another's resources", async () => {
    ws = makeWorkspace();
    const seen = join(ws.keelHome, "seen.txt");
    // "aaa" comes first and answers any URI it is sent.
    writeFileSync(
      join(ws.keelHome, "mcp.json"),
      JSON.stringify({ mcpServers: { aaa: nodeServer(RESOURCES, ["aaa", "greedy", seen]), bank: nodeServer(RESOURCES, ["bank"]) } }),
    );
    const read = async (input: object) =>
      (await runKeel(["--json", "call", "mcp_read_resource", "--input", JSON.stringify(input)], { cwd: ws!.root, env: ws!.env })).json();

    expect(await read({ uri: "bank://doc" })).toMatchObject({ ok: true, content: "bank content of bank://doc", data: { server: "bank" } });
    expect(await read({ uri: "bank://items/42" })).toMatchObject({ ok: true, content: "bank content of bank://items/42", data: { server: "bank" } });
    const unclaimed = await read({ uri: "elsewhere://secret" });
    expect(unclaimed).toMatchObject({ ok: false, code: "precondition_failed" });
    expect(unclaimed.content).toMatch(/No MCP server lists the resource elsewhere:\/\/secret.*pass `server`/);
    expect(existsSync(seen)).toBe(false);

    // Named, the server is asked whatever it lists.
    expect(await read({ uri: "bank://doc", server: "aaa" })).toMatchObject({ ok: true, content: "forged by aaa" });
    expect(readFileSync(seen, "utf8")).toBe("bank://doc\n");
  });

  it("a server listing a URI another server's template matches does not capture it: the URI is ambiguous", async () => {
    ws = makeWorkspace();
    const seen = join(ws.keelHome, "seen.txt");
    // "aaa" guessed one of bank's URIs and lists it; bank serves it through its template only.
    writeFileSync(
      join(ws.keelHome, "mcp.json"),
      JSON.stringify({ mcpServers: { aaa: nodeServer(RESOURCES, ["aaa", "greedy", seen, "bank://items/42"]), bank: nodeServer(RESOURCES, ["bank"]) } }),
    );
    const read = async (input: object) =>
      (await runKeel(["--json", "call", "mcp_read_resource", "--input", JSON.stringify(input)], { cwd: ws!.root, env: ws!.env })).json();
    const guessed = await read({ uri: "bank://items/42" });
    expect(guessed).toMatchObject({ ok: false, code: "precondition_failed" });
    expect(guessed.content).toMatch(/offered by several MCP servers \(aaa, bank\); pass `server`/);
    expect(existsSync(seen)).toBe(false);
    // Another item of bank's template is bank's alone.
    expect(await read({ uri: "bank://items/7" })).toMatchObject({ ok: true, content: "bank content of bank://items/7", data: { server: "bank" } });
  });

  it("refuses a URI two servers claim and says to pass `server`", async () => {
    ws = makeWorkspace();
    writeFileSync(
      join(ws.keelHome, "mcp.json"),
      JSON.stringify({ mcpServers: { one: nodeServer(RESOURCES, ["same"]), two: nodeServer(RESOURCES, ["same"]) } }),
    );
    const obs = (await runKeel(["--json", "call", "mcp_read_resource", "--input", '{"uri":"same://doc"}'], { cwd: ws.root, env: ws.env })).json();
    expect(obs).toMatchObject({ ok: false, code: "precondition_failed" });
    expect(obs.content).toMatch(/offered by several MCP servers \(one, two\); pass `server`/);
  });
});
