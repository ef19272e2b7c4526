import { execa, type ResultPromise } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { openTestHost } from "../../helpers/test-host.js";
import type { TempWorkspace } from "../../helpers/temp-workspace.js";
import { EVERYTHING, freePort, mcpWorkspace, waitFor } from "./mcp-test-kit.js";

async function startEverything(mode: "streamableHttp" | "sse", probePath: string): Promise<{ port: number; child: ResultPromise }> {
  const port = await freePort();
  const child = execa(process.execPath, [EVERYTHING, mode], { env: { PORT: String(port) }, reject: false, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
  await waitFor(() => /listening|running/i.test(stderr), 15_000);
  await waitFor(async () => (await fetch(`http://127.0.0.1:${port}${probePath}`, { method: "HEAD" }).catch(() => undefined)) !== undefined, 20_000);
  return { port, child };
}

describe("HTTP servers on 127.0.0.1", () => {
  let ws: TempWorkspace;
  let host: Host;
  const children: ResultPromise[] = [];
  beforeAll(async () => {
    const [streamable, sse] = await Promise.all([startEverything("streamableHttp", "/mcp"), startEverything("sse", "/message")]);
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
