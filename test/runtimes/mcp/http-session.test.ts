import { fileURLToPath } from "node:url";
import { execa, type ResultPromise } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import type { TempWorkspace } from "../../helpers/temp-workspace.js";
import { freePort, mcpWorkspace, waitFor } from "./mcp-test-kit.js";

const SESSIONS = fileURLToPath(new URL("./fixtures/session-http-server.mjs", import.meta.url));

describe("streamable HTTP sessions", () => {
  let server: ResultPromise | undefined;
  let ws: TempWorkspace | undefined;
  afterEach(() => {
    server?.kill();
    ws?.cleanup();
  });

  async function start(env: Record<string, string> = {}): Promise<string> {
    const port = await freePort();
    server = execa(process.execPath, [SESSIONS], { env: { PORT: String(port), ...env }, reject: false });
    let out = "";
    server.stdout?.on("data", (c: Buffer) => (out += c.toString()));
    await waitFor(() => out.includes("listening"));
    return `http://127.0.0.1:${port}`;
  }
  const sessions = async (base: string) => (await (await fetch(`${base}/sessions`)).json()) as { open: string[]; deletes: number };

  it("are ended with DELETE when keel exits: the server keeps no session", async () => {
    const base = await start();
    ws = mcpWorkspace({ s: { type: "http", url: `${base}/mcp` } });
    const r = await runKeel(["--json", "--trust", "--yes", "call", "mcp__s__echo", "--input", '{"message":"hi"}'], { cwd: ws.root, env: ws.env });
    expect(r.json()).toMatchObject({ ok: true, content: "echo: hi" });
    expect(await sessions(base)).toEqual({ open: [], deletes: 1 });
  });

  it("a server that never answers the DELETE does not keep keel from exiting", async () => {
    const base = await start({ KEEL_HANG_DELETE: "1" });
    ws = mcpWorkspace({ s: { type: "http", url: `${base}/mcp` } });
    const r = await runKeel(["--json", "--trust", "--yes", "call", "mcp__s__echo", "--input", '{"message":"hi"}'], { cwd: ws.root, env: ws.env });
    expect(r.exitCode).toBe(0);
    expect((await sessions(base)).deletes).toBe(1);
  });
});
