import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

// Real CLI runs of the bash tool (`keel call bash`), and of bubblewrap for the sandboxed case.

/** Secrets in keel's environment, by name, with values that appear nowhere else. */
const SECRETS = {
  FOO_TOKEN: "footokenvalue1",
  AWS_SECRET_ACCESS_KEY: "awssecretvalue2",
  MY_API_KEY: "myapikeyvalue3",
  GH_ENTERPRISE_TOKEN: "ghevalue4",
  DATABASE_URL: "postgres://app:dbpasswordvalue5@db/app",
  OPENAI_API_KEY: "openaikeyvalue6",
} as const;

let ws: TempWorkspace | undefined;
let home: string | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
  if (home) rmSync(home, { recursive: true, force: true });
  home = undefined;
});

/** The workspace's environment plus the secrets and one ordinary variable. */
function envOf(w: TempWorkspace): NodeJS.ProcessEnv {
  return { ...w.env, ...SECRETS, ORDINARY_SETTING: "plainvalue" };
}

/**
 * `keel call bash env` in the workspace; the whole observation as text, and stdout. The command prints its letters
 * in ROT13 (`tr`), turned back here: tool results hide credentials from your environment (`***`, also reversed), and
 * what these tests check is which variables the command gets, not that second net.
 */
async function runEnv(w: TempWorkspace, env: NodeJS.ProcessEnv, ...flags: string[]): Promise<{ text: string; stdout: string; sandbox?: string }> {
  const r = await runKeel(["--yes", "--json", ...flags, "call", "bash", "--input", JSON.stringify({ command: "env | tr A-Za-z N-ZA-Mn-za-m" })], {
    cwd: w.root,
    env,
  });
  expect(r.exitCode, r.stderr).toBe(0);
  const obs = r.json();
  const stdout = (obs.data.stdout as string).replace(/[A-Za-z]/g, (c) => {
    const base = c <= "Z" ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });
  return { text: stdout + r.stdout + r.stderr, stdout, sandbox: obs.metadata.sandbox };
}

/** The value of one variable in `env` output, or undefined. */
function valueIn(stdout: string, name: string): string | undefined {
  return stdout
    .split("\n")
    .find((l) => l.startsWith(`${name}=`))
    ?.slice(name.length + 1);
}

describe("commands run for the model do not get secret-looking variables (real CLI)", () => {
  it("short secret names (DB_PASS), webhook URLs, CI JWTs and values shaped like a token or key are withheld too", async () => {
    ws = makeWorkspace({}, { git: true });
    const more = {
      DB_PASS: "dbpassvalue8",
      SLACK_WEBHOOK_URL: "https://hooks.slack.com/services/T0/B0/webhookvalue9",
      CI_JOB_JWT: "jwtvalue10",
      SOME_SETTING: "ghp_tokenshapedvalue11abcdefghij",
      APP_PEM: "-----BEGIN RSA PRIVATE KEY-----\npemvalue12\n-----END RSA PRIVATE KEY-----",
    };
    const { text } = await runEnv(ws, { ...envOf(ws), ...more });
    for (const value of ["dbpassvalue8", "webhookvalue9", "jwtvalue10", "tokenshapedvalue11", "pemvalue12"]) expect(text).not.toContain(value);
  });

  it("build settings whose names hold KEY or PRIVATE but no secret stay (GOPRIVATE, keyring backends, Keycloak)", async () => {
    ws = makeWorkspace({}, { git: true });
    const settings = {
      GOPRIVATE: "github.com/acme/*",
      PYTHON_KEYRING_BACKEND: "keyring.backends.null.Keyring",
      PIP_KEYRING_PROVIDER: "subprocess",
      KEYCLOAK_URL: "http://localhost:8080",
    };
    const { stdout } = await runEnv(ws, { ...envOf(ws), ...settings, KEYCLOAK_CLIENT_SECRET: "keycloaksecretvalue7" });
    for (const [name, value] of Object.entries(settings)) expect(valueIn(stdout, name), name).toBe(value);
    expect(stdout).not.toContain("keycloaksecretvalue7");
  });

  it("`env` through the bash tool shows none of their values; PATH, HOME and ordinary variables stay", async () => {
    ws = makeWorkspace({}, { git: true });
    const { text, stdout } = await runEnv(ws, { ...envOf(ws), KEEL_TRUST: "1" });
    for (const value of Object.values(SECRETS)) expect(text).not.toContain(value);
    expect(valueIn(stdout, "KEEL_TRUST")).toBeUndefined(); // a keel the model runs does not inherit this run's trust
    expect(valueIn(stdout, "ORDINARY_SETTING")).toBe("plainvalue");
    expect(valueIn(stdout, "PATH")).toBe(ws.env.PATH);
    expect(valueIn(stdout, "HOME")).toBe(ws.env.HOME);
    // keel doctor names what commands do not get, never the values.
    const doctor = await runKeel(["--json", "doctor"], { cwd: ws.root, env: envOf(ws) });
    const line = (doctor.json().checks as { name: string; message: string }[]).find((c) => c.name === "env")!;
    expect(line.message).toMatch(/commands for the model run without \d+ secret-looking variables: .*AWS_SECRET_ACCESS_KEY.*FOO_TOKEN/);
    expect(line.message).toContain("commandEnv.pass");
    for (const value of Object.values(SECRETS)) expect(doctor.stdout).not.toContain(value);
  });

  it("commandEnv.pass in your own config lets the named variables through (exact names and NAME_* patterns); the model key never", async () => {
    ws = makeWorkspace({}, { git: true });
    ws.writeUserConfig({ commandEnv: { pass: ["FOO_TOKEN", "GH_*", "OPENAI_*"] } });
    const { text, stdout } = await runEnv(ws, envOf(ws));
    expect(valueIn(stdout, "FOO_TOKEN")).toBe(SECRETS.FOO_TOKEN);
    expect(valueIn(stdout, "GH_ENTERPRISE_TOKEN")).toBe(SECRETS.GH_ENTERPRISE_TOKEN);
    expect(text).not.toContain(SECRETS.OPENAI_API_KEY);
    expect(text).not.toContain(SECRETS.AWS_SECRET_ACCESS_KEY);
  });

  it("naming the model key in commandEnv.pass is a config error naming the file and field, for OPENAI_API_KEY and model.apiKeyEnv", async () => {
    ws = makeWorkspace({}, { git: true });
    ws.writeUserConfig({ commandEnv: { pass: ["OPENAI_API_KEY"] } });
    let r = await runKeel(["tools"], { cwd: ws.root, env: envOf(ws) });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/Invalid config field "commandEnv\.pass\.0" in .*config\.json: OPENAI_API_KEY is keel's model key: it never reaches commands/);
    ws.writeUserConfig({ model: { name: "m", apiKeyEnv: "MY_API_KEY" }, commandEnv: { pass: ["FOO_TOKEN", "MY_API_KEY"] } });
    r = await runKeel(["tools"], { cwd: ws.root, env: envOf(ws) });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/"commandEnv\.pass\.1" in .*config\.json: MY_API_KEY \(model\.apiKeyEnv\) is keel's model key/);
    ws.writeUserConfig({ commandEnv: { pass: "FOO_TOKEN" } });
    r = await runKeel(["tools"], { cwd: ws.root, env: envOf(ws) });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/Invalid config field "commandEnv\.pass" in .*config\.json/);
  });

  it("an untrusted workspace's commandEnv.pass is ignored with a warning naming the file; trusted, it applies as `keel trust` approved it, and a change waits for a new review", async () => {
    ws = makeWorkspace({ "keel.config.json": { commandEnv: { pass: ["FOO_TOKEN"] } } }, { git: true });
    const env = envOf(ws);
    let run = await runEnv(ws, env);
    expect(run.text).not.toContain(SECRETS.FOO_TOKEN);
    const tools = await runKeel(["--json", "tools"], { cwd: ws.root, env });
    const warning = (tools.json().diagnostics as { file?: string; message: string }[]).find((d) => /not trusted.*commandEnv ignored/.test(d.message));
    expect(warning?.file).toBe(join(ws.root, "keel.config.json"));

    const trust = await runKeel(["--json", "trust"], { cwd: ws.root, env });
    expect(trust.json().approved).toMatchObject([{ kind: "config", name: "settings that widen (commandEnv in keel.config.json)" }]);
    run = await runEnv(ws, env);
    expect(valueIn(run.stdout, "FOO_TOKEN")).toBe(SECRETS.FOO_TOKEN);
    expect(run.text).not.toContain(SECRETS.AWS_SECRET_ACCESS_KEY);

    // Widened since (as a command or a git pull could): held until the next keel trust.
    ws.write("keel.config.json", { commandEnv: { pass: ["FOO_TOKEN", "AWS_*"] } });
    run = await runEnv(ws, env);
    expect(run.text).not.toContain(SECRETS.FOO_TOKEN);
    expect(run.text).not.toContain(SECRETS.AWS_SECRET_ACCESS_KEY);
    await runKeel(["--json", "trust"], { cwd: ws.root, env });
    run = await runEnv(ws, env);
    expect(valueIn(run.stdout, "AWS_SECRET_ACCESS_KEY")).toBe(SECRETS.AWS_SECRET_ACCESS_KEY);
  });

  it("inside the sandbox (bwrap) the variables are absent too, and a passed one is present", async () => {
    ws = makeWorkspace({}, { git: true });
    ws.writeUserConfig({ sandbox: "workspace-write", commandEnv: { pass: ["MY_API_KEY"] } });
    const { text, stdout, sandbox } = await runEnv(ws, envOf(ws));
    expect(sandbox).toBe("workspace-write");
    for (const [name, value] of Object.entries(SECRETS)) if (name !== "MY_API_KEY") expect(text).not.toContain(value);
    expect(valueIn(stdout, "MY_API_KEY")).toBe(SECRETS.MY_API_KEY);
    expect(valueIn(stdout, "ORDINARY_SETTING")).toBe("plainvalue");
  });

  it("a workflow `run` step goes through the same scrubbing; nothing under .keel holds the values", async () => {
    ws = makeWorkspace({ ".claw-workflows.json": { workflows: [{ name: "show-env", steps: [{ run: "env" }, { run: "env > env.txt" }] }] } }, { git: true });
    const r = await runKeel(["--trust", "--yes", "--json", "workflow", "run", "show-env"], { cwd: ws.root, env: envOf(ws) });
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    const written = ws.read("env.txt");
    expect(valueIn(written, "ORDINARY_SETTING")).toBe("plainvalue");
    for (const value of Object.values(SECRETS)) {
      expect(written).not.toContain(value);
      expect(r.stdout + r.stderr).not.toContain(value);
    }
    // grep exits 1 when no file matches (0: some file holds a value; 2: no .keel folder to search).
    const grep = spawnSync("grep", ["-rlF", "-e", SECRETS.FOO_TOKEN, "-e", SECRETS.AWS_SECRET_ACCESS_KEY, join(ws.root, ".keel")], { encoding: "utf8" });
    expect(grep.status, grep.stdout + grep.stderr).toBe(1);
  });

  it("command hooks (code you approved) keep keel's environment without the model key", async () => {
    ws = makeWorkspace({}, { git: true });
    // Outside the workspace, so the hook's output file is not the workspace's business.
    home = mkdtempSync("/var/tmp/keel-hook-env-");
    const out = join(home, "hook-env.txt");
    writeFileSync(out, "");
    ws.writeUserConfig({ hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: `env > ${out}` }] }] } });
    const { text } = await runEnv(ws, envOf(ws));
    expect(text).not.toContain(SECRETS.FOO_TOKEN);
    const hookEnv = readFileSync(out, "utf8");
    expect(valueIn(hookEnv, "FOO_TOKEN")).toBe(SECRETS.FOO_TOKEN);
    expect(hookEnv).not.toContain(SECRETS.OPENAI_API_KEY);
  });
});
