import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa, type ResultPromise } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { freePort, waitFor } from "./mcp-test-kit.js";

// session-http-server.mjs has a tool `roots` asking the client for its roots.
const ROOTS = fileURLToPath(new URL("./fixtures/session-http-server.mjs", import.meta.url));

describe("roots and remote servers", () => {
  let server: ResultPromise | undefined;
  let ws: TempWorkspace | undefined;
  afterEach(() => {
    server?.kill();
    ws?.cleanup();
  });

  it("a remote (http) server asking roots/list learns nothing of the local workspace path", async () => {
    const port = await freePort();
    server = execa(process.execPath, [ROOTS], { env: { PORT: String(port) }, reject: false });
    let out = "";
    server.stdout?.on("data", (c: Buffer) => (out += c.toString()));
    await waitFor(() => out.includes("listening"));
    ws = makeWorkspace();
    writeFileSync(join(ws.keelHome, "mcp.json"), JSON.stringify({ mcpServers: { remote: { type: "http", url: `http://127.0.0.1:${port}/mcp` } } }));
    const r = await runKeel(["--json", "--yes", "call", "mcp__remote__roots"], { cwd: ws.root, env: ws.env });
    expect(r.json()).toMatchObject({ ok: true });
    expect(r.json().content).toMatch(/^refused: /);
    expect(r.json().content).not.toContain(ws.root);
  });
});
