import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { environmentSecrets, strongSecrets } from "../../core/result-secrets.js";
import { useOpenAIServer } from "../helpers/openai-server.js";
import { runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

const server = useOpenAIServer();
let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

const TOKEN = "ghp_ResultSecretTest0123456789abcdefABCD";
const EVERYTHING = join(process.cwd(), "node_modules/@modelcontextprotocol/server-everything/dist/index.js");

/** Every file under `dir` (recursively), as text. */
function allText(dir: string): string {
  let out = "";
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    out += statSync(p).isDirectory() ? allText(p) : readFileSync(p, "utf8");
  }
  return out;
}

describe("which values count as secrets in tool results", () => {
  it("keeps credentials of 8+ characters, not plain words, numbers or paths", () => {
    expect(strongSecrets(["ghp_abcdefgh1234", "Authorization", "20240101", "/home/me/.ssh/id_ed25519", "short-1", " s3cr3t-pass "])).toEqual([
      "ghp_abcdefgh1234",
      "s3cr3t-pass",
    ]);
    const env = { GITHUB_TOKEN: TOKEN, API_KEY_HEADER: "Authorization", PORT: "3000", DATABASE_URL: "postgres://app:pw-9a8b7c6d@db/app", HOME: "/root" };
    const found = environmentSecrets(env);
    expect(found).toContain(TOKEN);
    expect(found).toContain("postgres://app:pw-9a8b7c6d@db/app");
    expect(found).toContain("pw-9a8b7c6d");
    expect(found).not.toContain("Authorization");
    expect(found).not.toContain("3000");
  });
});

describe("a URL's user name is no secret when the URL has a password", () => {
  it("environmentSecrets keeps postgres://app_user:…'s password and the URL, not app_user; a token as the user name stays", () => {
    const found = environmentSecrets({
      DATABASE_URL: "postgres://app_user:pw-9a8b7c6d@db/app",
      GIT_TOKEN_URL: "https://ghs_tokenAsUser0123456789@git.example.com/r",
    });
    expect(found).toContain("pw-9a8b7c6d");
    expect(found).toContain("postgres://app_user:pw-9a8b7c6d@db/app");
    expect(found).not.toContain("app_user");
    expect(found).toContain("ghs_tokenAsUser0123456789");
  });

  it("a proxy variable's password without a scheme (HTTPS_PROXY=me:pw@proxy, used as http://) is taken from commands and hidden from results", async () => {
    const password = "proxy-pw-Zq81xVc";
    expect(environmentSecrets({ HTTPS_PROXY: `corp-user:${password}@proxy:3128` })).toContain(password);
    ws = makeWorkspace({ "proxy.txt": `proxy password: ${password}\n` });
    const env = { ...ws.env, HTTPS_PROXY: `corp-user:${password}@127.0.0.1:9`, NO_PROXY: "*" };
    const bash = await runKeel(["--yes", "--json", "call", "bash", "--input", JSON.stringify({ command: "env" })], { cwd: ws.root, env });
    expect(bash.json().content).not.toContain(password);
    expect(bash.json().content).not.toContain("HTTPS_PROXY=");
    const read = await runKeel(["--json", "call", "read_file", "--input", JSON.stringify({ path: "proxy.txt" })], { cwd: ws.root, env });
    expect(read.json().content).toContain("proxy password: ***");
  });

  it("read_file of a migration shows the role name of your DATABASE_URL as it is", async () => {
    ws = makeWorkspace({ "schema.sql": "GRANT SELECT ON accounts TO app_user;\n" });
    const env = { ...ws.env, DATABASE_URL: "postgres://app_user:pw-9a8b7c6d@db/app" };
    const run = await runKeel(["--json", "call", "read_file", "--input", JSON.stringify({ path: "schema.sql" })], { cwd: ws.root, env });
    expect(run.json().content).toContain("TO app_user;");
    expect(run.json().content).not.toContain("keel hid");
  });
});

describe("tool results hide the secrets keel knows (real CLI)", () => {
  it("read_file of a .env shows your environment's token as *** with a note, also in the saved full output", async () => {
    ws = makeWorkspace({
      ".env": `GITHUB_TOKEN=${TOKEN}\nMODE=Authorization\n`,
      "big.txt": `${"x".repeat(60_000)}\n${TOKEN}\n${"y".repeat(60_000)}\n${TOKEN}\n`,
    });
    const env = { ...ws.env, GITHUB_TOKEN: TOKEN, API_KEY_HEADER: "Authorization" };
    const run = await runKeel(["--json", "call", "read_file", "--input", JSON.stringify({ path: ".env" })], { cwd: ws.root, env });
    expect(run.exitCode).toBe(0);
    const obs = run.json();
    expect(obs.content).toContain("GITHUB_TOKEN=***");
    expect(obs.content).toContain("MODE=Authorization"); // a plain word named like a secret stays
    expect(obs.content).toMatch(/keel hid a secret value as \*\*\*/);
    expect(run.stdout).not.toContain(TOKEN);
    const big = await runKeel(["--json", "call", "read_file", "--input", JSON.stringify({ path: "big.txt" })], { cwd: ws.root, env });
    expect(big.json().truncated).toBe(true);
    expect(big.json().content).toMatch(/keel hid 2 secret values/);
    expect(allText(ws.path(".keel"))).not.toContain(TOKEN);
  });

  it("an MCP server's result hides a credential written into its config", async () => {
    const literal = "tok-literal-5d41402abc4b2a76";
    ws = makeWorkspace({
      ".mcp.json": { mcpServers: { every: { command: process.execPath, args: [EVERYTHING, "stdio"], env: { UPSTREAM_TOKEN: literal } } } },
    });
    const run = await runKeel(["--trust", "--yes", "--json", "call", "mcp__every__get-env", "--input", "{}"], { cwd: ws.root, env: ws.env });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain("UPSTREAM_TOKEN");
    expect(run.stdout).not.toContain(literal);
    expect(allText(ws.path(".keel"))).not.toContain(literal);
  });

  it("the model never receives its own API key from a file it reads, and the session files hold none", async () => {
    const key = "zz9-model-access-000111";
    ws = makeWorkspace({ "notes.txt": `deploy with ${key} please\n` }, { git: true });
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl, apiKeyEnv: "MODEL_ACCESS" } });
    server.push({ text: "", toolCalls: [{ id: "r1", name: "read_file", arguments: { path: "notes.txt" } }] }, { text: "done" });
    const run = await runKeel(["--json", "run", "read the notes"], { cwd: ws.root, env: { ...ws.env, MODEL_ACCESS: key } });
    expect(run.exitCode, run.stderr).toBe(0);
    const second = JSON.stringify(server.requests.at(-1));
    expect(second).toContain("deploy with ***");
    expect(second).not.toContain(key);
    expect(allText(ws.path(".keel"))).not.toContain(key);
  });

  it("write_file refuses to replace a secret it showed as *** with ***, and writes what keeps it", async () => {
    ws = makeWorkspace({ ".env": `GITHUB_TOKEN=${TOKEN}\n` });
    const env = { ...ws.env, GITHUB_TOKEN: TOKEN };
    const call = (content: string) =>
      runKeel(["--yes", "--json", "call", "write_file", "--input", JSON.stringify({ path: ".env", content })], { cwd: ws!.root, env });
    const lossy = await call("GITHUB_TOKEN=***\nMORE=1\n");
    expect(lossy.json()).toMatchObject({ ok: false, code: "precondition_failed" });
    expect(lossy.json().content).toContain("would replace it with ***");
    expect(ws.read(".env")).toBe(`GITHUB_TOKEN=${TOKEN}\n`);
    const fine = await call(`GITHUB_TOKEN=${TOKEN}\nMORE=1\n`);
    expect(fine.json().ok).toBe(true);
    expect(ws.read(".env")).toBe(`GITHUB_TOKEN=${TOKEN}\nMORE=1\n`);
  });

  it("edit_file whose old_string holds the *** it was shown says why it is not found", async () => {
    ws = makeWorkspace({ ".env": `GITHUB_TOKEN=${TOKEN}\nMODE=dev\n` });
    const env = { ...ws.env, GITHUB_TOKEN: TOKEN };
    const call = (tool: string, input: object) => runKeel(["--yes", "--json", "call", tool, "--input", JSON.stringify(input)], { cwd: ws!.root, env });
    expect((await call("read_file", { path: ".env" })).json().content).toContain("GITHUB_TOKEN=***");
    const blind = await call("edit_file", { path: ".env", old_string: "GITHUB_TOKEN=***\nMODE=dev", new_string: "GITHUB_TOKEN=***\nMODE=prod" });
    expect(blind.json().ok).toBe(false);
    expect(blind.json().content).toContain("keel showed you in place of a secret");
    const around = await call("edit_file", { path: ".env", old_string: "MODE=dev", new_string: "MODE=prod" });
    expect(around.json().ok).toBe(true);
    expect(ws.read(".env")).toBe(`GITHUB_TOKEN=${TOKEN}\nMODE=prod\n`);
  });
});
