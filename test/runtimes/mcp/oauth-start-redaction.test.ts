import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { filesContaining } from "../../helpers/files-containing.js";
import { runKeel } from "../../helpers/run-cli.js";
import { mcpWorkspace } from "./mcp-test-kit.js";
import { browserPlayer, startOAuthExample } from "./oauth-example-server.js";

describe("MCP OAuth: tokens quoted while the connection is still starting", () => {
  it("an initialize that fails quoting the bearer token shows *** in the login, mcp list/doctor, a call's observation and .keel files", async () => {
    // The example server's every initialize with a token fails with a 502 whose body quotes that token.
    const leaky = await startOAuthExample(["--leaky-initialize"]);
    const w = mcpWorkspace({ leaky: { type: "http", url: leaky.url } });
    try {
      const login = await runKeel(["--trust", "--json", "mcp", "login", "leaky"], { cwd: w.root, env: w.env, onStderr: browserPlayer().onStderr });
      const dir = join(w.keelHome, "mcp-oauth");
      const files = readdirSync(dir).filter((f) => f.endsWith(".json"));
      expect(files, login.stdout + login.stderr).toHaveLength(1);
      const token = JSON.parse(readFileSync(join(dir, files[0]!), "utf8")).tokens.access_token as string;
      expect(token.length).toBeGreaterThan(8);
      // The failure itself is reported (with the server's words), the token in it as ***.
      expect(login.stdout + login.stderr).toContain("Bearer ***");
      const outputs = [login.stdout, login.stderr];
      for (const args of [
        ["--trust", "--json", "mcp", "list"],
        ["--trust", "--json", "mcp", "doctor"],
        ["--trust", "--yes", "--json", "call", "mcp__leaky__whoami"],
      ]) {
        const r = await runKeel(args, { cwd: w.root, env: w.env });
        outputs.push(r.stdout, r.stderr);
      }
      expect(outputs.join("\n")).toContain("upstream rejected Authorization: Bearer ***");
      for (const text of outputs) expect(text).not.toContain(token);
      expect(filesContaining(w.root, token)).toEqual([]);
      // Only the token store holds it (not a health record or a log under $KEEL_HOME).
      expect(filesContaining(w.keelHome, token).map((f) => f.replace(/\\/g, "/"))).toEqual([expect.stringContaining("mcp-oauth/")]);
    } finally {
      await leaky.stop();
      w.cleanup();
    }
  });
});
