import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import type { TempWorkspace } from "../../helpers/temp-workspace.js";
import { mcpWorkspace } from "./mcp-test-kit.js";
import { startOAuthExample, type OAuthExampleServer } from "./oauth-example-server.js";

let server: OAuthExampleServer | undefined;
let ws: TempWorkspace | undefined;
afterEach(async () => {
  await server?.stop();
  ws?.cleanup();
  server = ws = undefined;
});

describe("keel mcp login's loopback callback", () => {
  it("a request with another state (any local page or program can reach the port) is refused with 400 and does not end the login", async () => {
    server = await startOAuthExample();
    ws = mcpWorkspace({ remote: { type: "http", url: server.url } });
    const forged: number[] = [];
    let browsed = false;
    const onStderr = (text: string) => {
      const m = /^\s+(http:\/\/\S+\/authorize\S*)$/m.exec(text);
      if (!m || browsed) return;
      browsed = true;
      const redirect = new URL(m[1]!).searchParams.get("redirect_uri")!;
      void (async () => {
        // Before the user's browser comes back: a forged refusal and a forged code.
        forged.push((await fetch(`${redirect}?state=forged&error=access_denied`)).status);
        forged.push((await fetch(`${redirect}?state=forged&code=attacker`)).status);
        await fetch(m[1]!);
      })().catch(() => undefined);
    };
    const r = await runKeel(["--trust", "--json", "mcp", "login", "remote", "--timeout", "60"], { cwd: ws.root, env: ws.env, onStderr });
    expect(r.json(), r.stderr).toMatchObject({ server: "remote", state: "connected", lastError: null });
    expect(forged).toEqual([400, 400]);
  });
});
