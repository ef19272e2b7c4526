import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyLikeSegment, urlForDisplay, urlSecrets } from "../../../core/url-secrets.js";
import { literalSecrets } from "../../../manifests/mcp/literal-secrets.js";
import { filesContaining } from "../../helpers/files-containing.js";
import { useOpenAIServer } from "../../helpers/openai-server.js";
import { runKeel, type CliRun } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { nodeServer } from "./mcp-test-kit.js";

const RECORDING = fileURLToPath(new URL("./fixtures/recording-server.mjs", import.meta.url));

describe("key-like path segments of a URL", () => {
  it("count as credentials (long and random: hex, a token, a UUID, an id:token pair); a route's words and ids do not", () => {
    for (const key of [
      "3f9a8c7e2b1d4f6a9c8e7b2a1d3f5e6c",
      "sk-ak-Xq2pL9zR8mN4tK7w",
      "123e4567-e89b-12d3-a456-426614174000",
      "AbCdEfGhIjKlMnOpQrStUv",
      "bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw",
    ])
      expect(keyLikeSegment(key), key).toBe(true);
    for (const word of [
      "mcp",
      "sse",
      "v1",
      "deployments",
      "gpt-4o-2024-08-06",
      "server-everything-2",
      "ModelContextProtocolServer",
      "modelcontextprotocol",
      "2024-11-05",
    ])
      expect(keyLikeSegment(word), word).toBe(false);
    const url = "https://mcp.example.com/mcp/3f9a8c7e2b1d4f6a9c8e7b2a1d3f5e6c/sse?format=json";
    expect(urlSecrets(url)).toEqual(["3f9a8c7e2b1d4f6a9c8e7b2a1d3f5e6c"]);
    expect(urlForDisplay(url)).toBe("https://mcp.example.com/mcp/***/sse?format=json");
    expect(urlForDisplay("https://api.example.com/v1/chat/completions")).toBe("https://api.example.com/v1/chat/completions");
    expect(literalSecrets({ url: "https://x.example/v1/sk-ak-Xq2pL9zR8mN4tK7w" })).toEqual(["sk-ak-Xq2pL9zR8mN4tK7w"]);
  });
});

describe("a key in the path of a server's URL and a token in a tool schema's enum/const stay away from the model, keel mcp and .keel (real CLI)", () => {
  const server = useOpenAIServer();
  const key = randomBytes(16).toString("hex");
  const token = `tok-${randomBytes(12).toString("base64url")}`;
  let ws: TempWorkspace;
  let hostile: Server;
  const runs: { args: string[]; run: CliRun }[] = [];
  const keel = async (...args: string[]) => {
    const run = await runKeel(args, { cwd: ws.root, env: { ...ws.env, UPSTREAM_TOKEN: token, KEEL_TEST_KEY: "test-key-0000" } });
    runs.push({ args, run });
    return run;
  };

  beforeAll(async () => {
    // A careless endpoint: every answer names the path it was asked for.
    hostile = createServer((req, res) => res.writeHead(404, { "content-type": "text/plain" }).end(`no MCP endpoint at ${req.url}`));
    await new Promise<void>((done) => hostile.listen(0, "127.0.0.1", done));
    const port = (hostile.address() as AddressInfo).port;
    ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
    // The form hosted servers' docs show: the key pasted into the URL in the user's own manifest.
    const servers = {
      remote: { type: "http", url: `http://127.0.0.1:${port}/mcp/${key}/sse`, startupTimeoutMs: 5000 },
      rec: nodeServer(RECORDING, [], { env: { KEEL_LEAK: "${UPSTREAM_TOKEN}" } }),
    };
    writeFileSync(join(ws.keelHome, "mcp.json"), JSON.stringify({ mcpServers: servers }));
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl, apiKeyEnv: "KEEL_TEST_KEY" } });
  });
  afterAll(async () => {
    await new Promise((done) => hostile?.close(done));
    ws?.cleanup();
  });

  it("keel mcp list / doctor, keel run's requests and every file keel wrote show *** in their place", async () => {
    const list = await keel("--json", "mcp", "list");
    const remote = list.json().servers.find((s: { name: string }) => s.name === "remote");
    expect(remote.state).toBe("failed");
    await keel("mcp", "doctor");
    server.push({ toolCalls: [{ id: "r1", name: "mcp_list_resources", arguments: { server: "remote" } }] }, { text: "done" });
    const run = await keel("--yes", "--json", "run", "list the remote resources");
    expect(run.exitCode, run.stderr).toBe(0);

    // The model's menu: the tool whose schema holds the token in an enum and a const shows *** there.
    const leak = server.requests[0]!.tools!.find((t) => t.function.name === "mcp__rec__leak")!;
    expect(leak.function.parameters).toMatchObject({ properties: { scope: { enum: ["***", "read"] }, auth: { const: "Bearer ***" } } });
    // The model's view of the failure: the server's answer, with the key as ***.
    const result = server.requests.at(-1)!.messages.find((m) => m.role === "tool")!;
    expect(JSON.stringify(result.content)).toContain("no MCP endpoint at /mcp/***/sse");

    const sent = JSON.stringify(server.requests);
    for (const secret of [key, token]) {
      expect(sent).not.toContain(secret);
      for (const { args, run: r } of runs) expect(r.stdout + r.stderr, `keel ${args.join(" ")}`).not.toContain(secret);
      expect(filesContaining(ws.path(".keel"), secret)).toEqual([]);
      expect(filesContaining(join(ws.keelHome, "state"), secret)).toEqual([]);
    }
  });
});
