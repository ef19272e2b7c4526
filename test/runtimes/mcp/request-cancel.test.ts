import { describe, expect, it, vi } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { RequestCancel } from "../../../runtimes/mcp/request-cancel.js";

/** What the SDK may read of a request's signal; RequestCancel implements exactly this. */
const READ = new Set(["throwIfAborted", "aborted", "reason", "addEventListener"]);

/** The handle behind a proxy that fails the test on any other access (an SDK upgrade that reads more must not go unnoticed). */
function strict(cancel: RequestCancel, touched: Set<string>): AbortSignal {
  return new Proxy(cancel, {
    get(target, key, receiver) {
      if (typeof key !== "string" || !READ.has(key)) throw new Error(`the MCP SDK read "${String(key)}" of a RequestCancel`);
      touched.add(key);
      const value = Reflect.get(target, key, receiver) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as unknown as AbortSignal;
}

/** A real SDK client and server (in memory): `wait` runs until cancelled and records that it was. */
async function pair() {
  const server = new McpServer({ name: "cancel-fixture", version: "1.0.0" });
  const cancelled: string[] = [];
  let arrived!: () => void;
  const started = new Promise<void>((r) => (arrived = r));
  server.registerTool("wait", { description: "waits until cancelled" }, (extra) => {
    arrived();
    return new Promise((resolve) => {
      extra.signal.addEventListener("abort", () => {
        cancelled.push(String(extra.signal.reason));
        resolve({ content: [{ type: "text", text: "cancelled" }] });
      });
    });
  });
  server.registerTool("echo", { description: "echo" }, () => ({ content: [{ type: "text", text: "hi" }] }));
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "test", version: "1.0.0" });
  await Promise.all([server.connect(b), client.connect(a)]);
  return { client, server, cancelled, started };
}

describe("RequestCancel (the MCP SDK's request signal without an AbortController)", () => {
  it("abort cancels the request at the server and rejects the call; the SDK reads only the pinned members", async () => {
    const { client, server, cancelled, started } = await pair();
    const cancel = new RequestCancel();
    const touched = new Set<string>();
    const call = client.callTool({ name: "wait", arguments: {} }, undefined, { signal: strict(cancel, touched), timeout: 60_000 });
    await started;
    cancel.abort(new Error("user pressed Ctrl-C"));
    await expect(call).rejects.toThrow(/Ctrl-C/);
    await expect.poll(() => cancelled).toHaveLength(1);
    expect(cancelled[0]).toMatch(/Ctrl-C/);
    // The proxy threw on anything else; the SDK did use the handle (checked it, then listened on it).
    expect(touched.has("throwIfAborted") && touched.has("addEventListener")).toBe(true);
    cancel.abort(new Error("again")); // a second abort does nothing
    await client.close();
    await server.close();
  });

  it("after an abort the SDK's own timeout is cleared: the server hears of the cancellation once", async () => {
    const { client, server, cancelled, started } = await pair();
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const cancel = new RequestCancel();
      const call = client.callTool({ name: "wait", arguments: {} }, undefined, { signal: cancel.asSignal(), timeout: 1000 });
      await started;
      cancel.abort(new Error("deadline"));
      await expect(call).rejects.toThrow(/deadline/);
      vi.advanceTimersByTime(10_000); // well past the SDK's timeout: had it stayed armed, it would cancel again
      await client.callTool({ name: "echo", arguments: {} }); // every earlier notification has reached the server
      expect(cancelled).toHaveLength(1);
    } finally {
      vi.useRealTimers();
      await client.close();
      await server.close();
    }
  });

  it("a handle aborted before the request is sent sends nothing; a completed request is not cancelled later", async () => {
    const { client, server, cancelled } = await pair();
    const early = new RequestCancel();
    early.abort(new Error("too late"));
    await expect(client.callTool({ name: "wait", arguments: {} }, undefined, { signal: early.asSignal() })).rejects.toThrow(/too late/);
    const done = new RequestCancel();
    const result = await client.callTool({ name: "echo", arguments: {} }, undefined, { signal: done.asSignal() });
    expect(result.content).toEqual([{ type: "text", text: "hi" }]);
    done.abort(new Error("after the fact"));
    // The echo call is over: nothing reaches the server, and the wait tool was never called.
    await client.callTool({ name: "echo", arguments: {} });
    expect(cancelled).toEqual([]);
    await client.close();
    await server.close();
  });
});
