import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";

let base: string | undefined;
afterEach(() => base && rmSync(base, { recursive: true, force: true }));

const SECRETS = ["OAUTH-TOKEN-SECRET", "SESSION-KEY-SECRET", "SSH-KEY-SECRET", "AWS-KEY-SECRET"];

/** A home folder that is itself the workspace (keel run in ~, or a dotfiles repository), with keel's secrets and credential stores in it. */
function homeWorkspace(): { home: string; env: NodeJS.ProcessEnv } {
  base = realpathSync(mkdtempSync(join(tmpdir(), "keel-home-secrets-")));
  const home = join(base, "home");
  const files: Record<string, string> = {
    ".keel/mcp-oauth/0123abcd.json": '{"tokens": {"access_token": "OAUTH-TOKEN-SECRET"}}\n',
    ".keel/session-key": "SESSION-KEY-SECRET\n",
    ".ssh/id_rsa": "SSH-KEY-SECRET\n",
    ".aws/credentials": "[default]\naws_secret_access_key = AWS-KEY-SECRET\n",
    "notes/todo.md": "nothing secret\n",
    // Imports are followed inside the workspace, which here holds the credential stores.
    "CLAUDE.md": "Be brief.\n@.aws/credentials\n@.keel/session-key\n",
  };
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(home, rel)), { recursive: true });
    writeFileSync(join(home, rel), text);
  }
  mkdirSync(join(home, ".git"));
  symlinkSync(join(home, ".ssh", "id_rsa"), join(home, "notes", "key.txt"));
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, CI: "true" };
  delete env.KEEL_HOME;
  delete env.KEEL_TRUST;
  return { home, env };
}

describe("file tools never reach keel's tokens or your credential stores, also when the workspace holds them", () => {
  it("read_file, list_dir, grep, glob and instruction imports refuse or skip them, whatever --yes and allow rules say", async () => {
    const { home, env } = homeWorkspace();
    writeFileSync(join(home, ".keel", "config.json"), JSON.stringify({ permissions: { allow: ["read_file(**)"] } }));
    const keel = (...args: string[]) => runKeel(["--json", "--yes", ...args], { cwd: home, env });
    const outputs: string[] = [];
    for (const path of [".ssh/id_rsa", ".keel/mcp-oauth/0123abcd.json", ".keel/session-key", ".aws/credentials", "notes/key.txt"]) {
      const read = await keel("call", "read_file", "--input", JSON.stringify({ path }));
      expect(read.json(), path).toMatchObject({ ok: false, code: "permission_denied" });
      outputs.push(read.stdout);
    }
    const list = await keel("call", "list_dir", "--input", '{"path": ".ssh"}');
    expect(list.json()).toMatchObject({ ok: false, code: "permission_denied" });
    const grep = await keel("call", "grep", "--input", '{"pattern": "SECRET"}');
    const grepKeel = await keel("call", "grep", "--input", '{"pattern": "SECRET", "path": ".keel"}');
    const glob = await keel("call", "glob", "--input", '{"pattern": "**/*", "include_ignored": true}');
    expect(glob.json().content).toContain("notes/todo.md");
    expect(glob.json().content).not.toMatch(/id_rsa|credentials|session-key|0123abcd/);
    const context = await keel("context");
    expect(context.json().system.text).toContain("Be brief.");
    outputs.push(list.stdout, grep.stdout, grepKeel.stdout, glob.stdout, context.stdout);
    for (const out of outputs) for (const secret of SECRETS) expect(out).not.toContain(secret);
  });

  it('"sandbox": {"credentials": "visible"} in your config lets tools see credential stores, never keel\'s own tokens', async () => {
    const { home, env } = homeWorkspace();
    writeFileSync(join(home, ".keel", "config.json"), JSON.stringify({ sandbox: { credentials: "visible" } }));
    const keel = (...args: string[]) => runKeel(["--json", "call", ...args], { cwd: home, env });
    expect((await keel("read_file", "--input", '{"path": ".ssh/id_rsa"}')).json()).toMatchObject({
      ok: true,
      content: expect.stringContaining("SSH-KEY-SECRET"),
    });
    expect((await keel("read_file", "--input", '{"path": ".keel/session-key"}')).json()).toMatchObject({ ok: false, code: "permission_denied" });
  });
});
