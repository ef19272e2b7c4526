import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { literalSecrets } from "../../../manifests/mcp/literal-secrets.js";
import { filesContaining } from "../../helpers/files-containing.js";
import { runKeel, type CliRun } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { freePort } from "./mcp-test-kit.js";

describe("literalSecrets: credentials written into a server entry itself", () => {
  it("takes a URL's user info and key-like query values, credential headers, env variables and options; not ordinary values", () => {
    const found = literalSecrets({
      url: "https://bot:url-pass@mcp.example.com/mcp?api_key=query-key&format=json",
      headers: { Authorization: "Bearer bearer-token", "X-Api-Key": "header-key", "Content-Type": "application/json" },
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: "ghp_env", DB_PASSWORD: "db-pass", DEBUG: "true", HOME: "/home/me" },
      args: ["--token", "arg-token", "--api-key=arg-key", "--port", "8080", "server.js"],
    });
    for (const secret of ["bot", "url-pass", "query-key", "Bearer bearer-token", "bearer-token", "header-key", "ghp_env", "db-pass", "arg-token", "arg-key"])
      expect(found).toContain(secret);
    for (const plain of ["json", "application/json", "true", "/home/me", "8080", "server.js"]) expect(found).not.toContain(plain);
    // A connection URL's password as an argument or in any variable (the official Postgres server takes its URL as an argument); not its user name.
    const urls = literalSecrets({
      args: ["postgresql://app:pg-arg-pass@db/app", "https://example.com/x"],
      env: { DATABASE_URL: "postgres://app:pg-env-pass@db/app" },
    });
    expect(urls).toEqual(["pg-arg-pass", "pg-env-pass"]);
    // A value naming a variable is left to expansion: an unset one's name and a default stay readable.
    expect(literalSecrets({ env: { GH_TOKEN: "${UNSET_GH_TOKEN}", API_KEY: "${API_KEY:-dev-key}" }, headers: { Authorization: "Bearer ${T}" } })).toEqual([]);
  });
});

describe("credentials written literally in $KEEL_HOME/mcp.json stay out of .keel, the model's view and keel mcp output (real CLI)", () => {
  let ws: TempWorkspace;
  const runs: { args: string[]; run: CliRun }[] = [];
  const SECRETS = ["LIT-ENV-TOKEN", "LIT-ARG-TOKEN", "LIT-URL-PASS", "LIT-QUERY-KEY", "LIT-PG-PASS"];
  const keel = async (...args: string[]) => {
    const run = await runKeel(args, { cwd: ws.root, env: ws.env });
    runs.push({ args, run });
    return run;
  };
  beforeAll(async () => {
    const closed = await freePort();
    ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
    // The form many hosts' docs show: the token pasted into the user's own manifest.
    const servers = {
      leaky: {
        command: process.execPath,
        args: [
          "-e",
          "console.error('token is ' + process.env.GH_TOKEN + ', argv ' + process.argv.slice(1).join(' ')); process.exit(3)",
          "--",
          "--token",
          "LIT-ARG-TOKEN",
          "postgresql://app:LIT-PG-PASS@db.example/app",
        ],
        env: { GH_TOKEN: "LIT-ENV-TOKEN" },
        startupTimeoutMs: 5000,
      },
      remote: { type: "http", url: `http://bot:LIT-URL-PASS@127.0.0.1:${closed}/mcp?api_key=LIT-QUERY-KEY`, startupTimeoutMs: 5000 },
    };
    writeFileSync(join(ws.keelHome, "mcp.json"), JSON.stringify({ mcpServers: servers }));
  });
  afterAll(() => ws?.cleanup());

  it("keel mcp list / doctor and the calls the model makes show *** in their place; no file under .keel holds them", async () => {
    const doctor = await keel("--json", "mcp", "doctor");
    const leaky = doctor.json().servers.find((s: { name: string }) => s.name === "leaky");
    expect(leaky.stderrTail).toContain("token is ***, argv --token *** postgresql://app:***@db.example/app"); // the child printed them: redacted
    const remote = doctor.json().servers.find((s: { name: string }) => s.name === "remote");
    expect(remote.state).toBe("failed");
    await keel("mcp", "list");
    const viaHttp = await keel("--yes", "--json", "call", "mcp_list_resources", "--input", JSON.stringify({ server: "remote" }));
    expect(viaHttp.json()).toMatchObject({ ok: false });
    const viaStdio = await keel("--yes", "--json", "call", "mcp_call_tool", "--input", JSON.stringify({ tool_name: "x", server: "leaky" }));
    expect(viaStdio.json()).toMatchObject({ ok: false });

    for (const { args, run } of runs)
      for (const secret of SECRETS) {
        expect(run.stdout, `stdout of keel ${args.join(" ")}`).not.toContain(secret);
        expect(run.stderr, `stderr of keel ${args.join(" ")}`).not.toContain(secret);
      }
    for (const secret of SECRETS) {
      expect(filesContaining(ws.path(".keel"), secret)).toEqual([]);
      expect(filesContaining(join(ws.keelHome, "state"), secret)).toEqual([]);
    }
  });
});
