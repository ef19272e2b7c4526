import type { ResultPromise } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { openTestHost } from "../../helpers/test-host.js";
import type { TempWorkspace } from "../../helpers/temp-workspace.js";
import { freePort, mcpWorkspace, startEverythingHttp } from "./mcp-test-kit.js";

describe("HTTP servers on 127.0.0.1", () => {
  let ws: TempWorkspace;
  let host: Host;
  const children: ResultPromise[] = [];
  beforeAll(async () => {
    const [streamable, sse] = await Promise.all([startEverythingHttp("streamableHttp"), startEverythingHttp("sse")]);
    children.push(streamable.child, sse.child);
    ws = mcpWorkspace({
      remote: { type: "http", url: `http://127.0.0.1:${streamable.port}/mcp` },
      legacy: { type: "http", url: `http://127.0.0.1:${sse.port}/sse` },
      down: { url: `http://127.0.0.1:${await freePort()}/mcp`, startupTimeoutMs: 2000 },
    });
    host = await openTestHost(ws, { trust: true, yes: true });
  });
  afterAll(async () => {
    await host?.close();
    for (const c of children) c.kill();
    ws?.cleanup();
  });

  it("streamable HTTP: echo and get-sum", async () => {
    expect((await host.runTool({ tool: "mcp__remote__echo", input: { message: "hi" } })).content).toBe("Echo: hi");
    expect((await host.runTool({ tool: "mcp__remote__get-sum", input: { a: 2, b: 3 } })).content).toBe("The sum of 2 and 3 is 5.");
    expect(host.service("mcp")!.find("remote")!.transportKind).toBe("http");
  });

  it("falls back to SSE when the server only speaks SSE", async () => {
    const conn = host.service("mcp")!.find("legacy")!;
    expect(conn.state).toBe("connected");
    expect(conn.transportKind).toBe("sse");
    expect((await host.runTool({ tool: "mcp__legacy__echo", input: { message: "old" } })).content).toBe("Echo: old");
  });

  it("an unreachable URL fails that server only, with a clear error", () => {
    const conn = host.service("mcp")!.find("down")!;
    expect(conn.state).toBe("failed");
    expect(conn.lastError).toMatch(/fetch failed|ECONNREFUSED|connect/i);
  });
});
