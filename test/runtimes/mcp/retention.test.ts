import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import type { Host } from "../../../core/index.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import * as types from "@modelcontextprotocol/sdk/types.js";
import { listAllToolsWithin } from "../../../runtimes/mcp/list-tools.js";
import { Retained } from "../../helpers/retained.js";
import { openTestHost } from "../../helpers/test-host.js";
import type { TempWorkspace } from "../../helpers/temp-workspace.js";
import { FAULT, mcpWorkspace, nodeServer } from "./mcp-test-kit.js";

/** A real SDK client and server (in memory); every request signal the client is handed is watched. */
async function watchedPair(retained: Retained) {
  const server = new McpServer({ name: "list-fixture", version: "1.0.0" });
  server.registerTool("echo", { description: "echo" }, () => ({ content: [{ type: "text", text: "hi" }] }));
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "test", version: "1.0.0" });
  await Promise.all([server.connect(b), client.connect(a)]);
  const request = client.request.bind(client);
  client.request = ((req, schema, options) => {
    retained.watch(options?.signal);
    return request(req, schema, options);
  }) as typeof client.request;
  return { client, server };
}

/** Signals of `n` listings still alive afterwards (the SDK leaves its abort listener on each). */
async function signalsKept(n: number, caller?: AbortSignal): Promise<number> {
  const retained = new Retained();
  const { client, server } = await watchedPair(retained);
  for (let i = 0; i < n; i++) expect((await listAllToolsWithin(client, types, 30_000, caller)).tools.map((t) => t.name)).toEqual(["echo"]);
  expect(retained.watched).toBe(n);
  const alive = await retained.alive();
  await client.close();
  await server.close();
  return alive;
}

describe("listing a server's tools keeps nothing per listing", () => {
  // Each (re)start and each tools/list_changed lists the tools. With `AbortSignal.any` Node kept every
  // page's signal for good (the SDK's listener stays on it), and with it the closed client of a restart.
  it("the request signals of 500 listings are freed as those of 50 are", async () => {
    const few = await signalsKept(50);
    const many = await signalsKept(500);
    expect(many).toBeLessThanOrEqual(few + 3);
    expect(many).toBeLessThanOrEqual(5);
  });

  it("with a caller's long-lived signal too, which keeps no listener of a listing", async () => {
    const caller = new AbortController();
    expect(await signalsKept(300, caller.signal)).toBeLessThanOrEqual(5);
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
  });
});

describe("restarting a server keeps nothing of the one before", () => {
  let host: Host | undefined;
  let ws: TempWorkspace | undefined;
  afterEach(async () => {
    await host?.close();
    ws?.cleanup();
    host = ws = undefined;
  });

  /** Clients of the `n` restarts before the last still alive (each restart closes the client before it). */
  async function clientsKept(n: number): Promise<number> {
    const manager = host!.service("mcp")!;
    const conn = manager.find("f")!;
    const retained = new Retained();
    for (let i = 0; i < n; i++) {
      retained.watch(await conn.ready());
      await manager.restart(conn);
      expect(conn.state).toBe("connected");
    }
    return retained.alive();
  }

  it("the closed clients of 24 restarts (keel mcp restart) are freed as those of 4 are", async () => {
    // The fault server's `ok` mode pages its tools/list: two requests per start.
    ws = mcpWorkspace({ f: nodeServer(FAULT, ["ok"]) });
    host = await openTestHost(ws, { trust: true, yes: true });
    expect((await host.runTool({ tool: "mcp__f__echo", input: { message: "hi" } })).ok).toBe(true);
    const few = await clientsKept(4);
    const many = await clientsKept(24);
    expect(many).toBeLessThanOrEqual(few + 2);
    expect(many).toBeLessThanOrEqual(3);
  });
});
