import type { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { MemoryEventSink } from "../../../core/events.js";
import { MCP_SERVICE } from "../../../runtimes/mcp/index.js";
import { openTestHost } from "../../helpers/test-host.js";
import type { TempWorkspace } from "../../helpers/temp-workspace.js";
import { EVERYTHING, mcpWorkspace, nodeServer } from "./mcp-test-kit.js";

/** The write operations the stream hands to the pipe (`_write`: one chunk, `_writev`: several at once), each as the texts it carried. */
function countWrites(stdin: Writable): { ops: string[][]; stop(): void } {
  const s = stdin as Writable & {
    _write: (chunk: unknown, encoding: BufferEncoding, cb: (error?: Error | null) => void) => void;
    _writev?: (chunks: { chunk: unknown; encoding: BufferEncoding }[], cb: (error?: Error | null) => void) => void;
  };
  const write = s._write;
  const writev = s._writev;
  const seen = { ops: [] as string[][], stop: () => undefined as void };
  s._write = function (chunk, encoding, cb) {
    seen.ops.push([String(chunk)]);
    return write.call(this, chunk, encoding, cb);
  };
  if (writev)
    s._writev = function (chunks, cb) {
      seen.ops.push(chunks.map((c) => String(c.chunk)));
      return writev.call(this, chunks, cb);
    };
  seen.stop = () => {
    s._write = write;
    if (writev) s._writev = writev;
  };
  return seen;
}

describe("tool calls sent in one tick share one write to a stdio server", () => {
  let ws: TempWorkspace;
  let host: Host;
  let stdin: Writable;
  const events = new MemoryEventSink();
  beforeAll(async () => {
    ws = mcpWorkspace({ everything: nodeServer(EVERYTHING, ["stdio"]) });
    host = await openTestHost(ws, { trust: true, yes: true, events });
    const client = await host.service(MCP_SERVICE)!.find("everything")!.ready();
    // The SDK (1.32) writes every message to the child's stdin (`StdioClientTransport._process`), which TickWrites corks:
    // if an SDK upgrade moves it, this fails instead of the batching being lost without a sign.
    stdin = (client.transport as unknown as { _process?: { stdin?: Writable } })._process!.stdin!;
    expect(typeof stdin.cork).toBe("function");
  });
  afterAll(async () => {
    await host?.close();
    ws?.cleanup();
  });

  it("8 concurrent calls: one write carrying the 8 requests, in order, and every call answered", async () => {
    const writes = countWrites(stdin);
    let observations;
    try {
      observations = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          host.runTool({ tool: "mcp__everything__echo", input: { message: `m${i}` } }, { signal: new AbortController().signal }),
        ),
      );
    } finally {
      writes.stop();
    }
    expect(observations.map((o) => o.content)).toEqual(Array.from({ length: 8 }, (_, i) => `Echo: m${i}`));
    // Other messages (the client's answers to the server's own requests) may follow in writes of their own.
    const calls = writes.ops.map((op) =>
      op.map((t) => JSON.parse(t) as { method?: string; params?: { arguments?: { message?: string } } }).filter((m) => m.method === "tools/call"),
    );
    expect(calls.filter((op) => op.length).map((op) => op.map((m) => m.params?.arguments?.message))).toEqual([Array.from({ length: 8 }, (_, i) => `m${i}`)]);
  });

  it("a lone call is written at the end of its tick, and the next tick's call in a write of its own", async () => {
    const writes = countWrites(stdin);
    try {
      expect((await host.runTool({ tool: "mcp__everything__echo", input: { message: "a" } })).content).toBe("Echo: a");
      expect((await host.runTool({ tool: "mcp__everything__echo", input: { message: "b" } })).content).toBe("Echo: b");
    } finally {
      writes.stop();
    }
    const calls = writes.ops.map((op) => op.filter((t) => (JSON.parse(t) as { method?: string }).method === "tools/call").length);
    expect(calls.filter((n) => n)).toEqual([1, 1]);
    expect(stdin.writableCorked).toBe(0);
  });
});
