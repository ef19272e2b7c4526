import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel, runKeelProcess } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

// Runs the real bubblewrap (`bwrap`), which .ci/run installs (Debian package bubblewrap).

let ws: TempWorkspace | undefined;
let home: string | undefined;
afterEach(() => {
  ws?.cleanup();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe("a sandboxed command cannot read keel's own secrets (real CLI, bwrap)", () => {
  it("the session key and the MCP OAuth tokens read as empty; the rest of $KEEL_HOME stays readable", async () => {
    ws = makeWorkspace({ "a.txt": "a\n" });
    // $KEEL_HOME outside /tmp: the sandbox's private /tmp would hide a home under it whole, and prove nothing.
    home = mkdtempSync("/var/tmp/keel-home-");
    writeFileSync(join(home, "config.json"), JSON.stringify({ sandbox: "workspace-write", model: { headers: { Authorization: "Bearer HEADERSECRET" } } }));
    writeFileSync(join(home, "mcp.json"), JSON.stringify({ mcpServers: { gh: { command: "gh-mcp", env: { GITHUB_TOKEN: "MCPENVSECRET" } } } }));
    const key = join(home, "session-key");
    writeFileSync(key, "SESSIONKEYSECRET\n", { mode: 0o600 });
    mkdirSync(join(home, "mcp-oauth"), { mode: 0o700 });
    writeFileSync(join(home, "mcp-oauth", "0123.json"), '{"tokens":{"access_token":"TOKENSECRET"}}', { mode: 0o600 });
    writeFileSync(join(home, "notes.txt"), "not a secret\n");
    const command = `cat ${key} ${join(home, "mcp-oauth")}/*.json ${join(home, "config.json")} ${join(home, "mcp.json")}; ls -A ${join(home, "mcp-oauth")} | wc -l; cat ${join(home, "notes.txt")}`;
    const env = { ...ws.env, KEEL_HOME: home };
    const r = await runKeel(["--yes", "--json", "call", "bash", "--input", JSON.stringify({ command })], { cwd: ws.root, env });
    const obs = r.json();
    expect(obs.metadata.sandbox, r.stdout + r.stderr).toBe("workspace-write");
    const out = `${obs.data.stdout}${obs.data.stderr}`;
    expect(out).not.toContain("SESSIONKEYSECRET");
    expect(out).not.toContain("TOKENSECRET");
    expect(out).not.toContain("HEADERSECRET");
    expect(out).not.toContain("MCPENVSECRET");
    expect(obs.data.stdout).toContain("not a secret");
    expect(obs.data.stdout).toMatch(/^0$/m); // the token folder is empty inside the sandbox
    // Nothing was changed outside: the files are as they were.
    expect(readFileSync(key, "utf8")).toBe("SESSIONKEYSECRET\n");
    expect(readFileSync(join(home, "mcp-oauth", "0123.json"), "utf8")).toContain("TOKENSECRET");
  });

  it("a keel run where your config reads as empty (as inside keel's sandbox) stops with exit 2 and says to run it outside the sandbox", async () => {
    // Run directly: inside the sandbox the checkout may be under the host's /tmp, which the sandbox replaces.
    ws = makeWorkspace({});
    writeFileSync(join(ws.keelHome, "config.json"), "");
    const r = await runKeelProcess(["tools"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(
      "If this keel runs inside keel's sandbox, which hides your config (an empty device there: `Permission denied`), run it outside the sandbox instead.",
    );
  });
});

describe("a sandboxed command cannot read your credential stores or the paths you deny (real CLI, bwrap)", () => {
  /** A home folder outside /tmp (the sandbox's private /tmp would hide one under it whole, and prove nothing). */
  function makeHome(): string {
    home = mkdtempSync("/var/tmp/keel-user-home-");
    mkdirSync(join(home, ".ssh"), { mode: 0o700 });
    writeFileSync(join(home, ".ssh", "id_ed25519"), "SSHSECRET\n", { mode: 0o600 });
    mkdirSync(join(home, ".aws"));
    writeFileSync(join(home, ".aws", "credentials"), "AWSSECRET\n");
    writeFileSync(join(home, ".netrc"), "NETRCSECRET\n");
    writeFileSync(join(home, "notes.txt"), "not a secret\n");
    mkdirSync(join(home, ".codex"));
    writeFileSync(join(home, ".codex", "auth.json"), '{"token":"CODEXSECRET"}');
    writeFileSync(join(home, ".claude.json"), '{"mcpServers":{"x":{"env":{"T":"CLAUDEJSONSECRET"}}}}');
    // Other agents' settings, holding MCP servers' env and API keys.
    for (const [dir, file, text] of [
      [".claude", "settings.json", '{"env":{"ANTHROPIC_API_KEY":"CLAUDESETTINGSSECRET"}}'],
      [".gemini", "settings.json", '{"mcpServers":{"x":{"env":{"T":"GEMINISECRET"}}}}'],
      [".codex", "config.toml", '[mcp_servers.x.env]\nT = "CODEXCONFIGSECRET"\n'],
      [".config/Code/User", "mcp.json", '{"servers":{"x":{"env":{"T":"VSCODESECRET"}}}}'],
    ] as const) {
      mkdirSync(join(home, dir), { recursive: true });
      writeFileSync(join(home, dir, file), text);
    }
    // A store moved elsewhere by its variable (KUBECONFIG) is hidden where it is.
    mkdirSync(join(home, "kube"));
    writeFileSync(join(home, "kube", "conf"), "KUBESECRET\n");
    return home;
  }
  const bash = async (env: NodeJS.ProcessEnv, command: string, cwd = ws!.root) => {
    const r = await runKeel(["--yes", "--json", "call", "bash", "--input", JSON.stringify({ command })], { cwd, env });
    const obs = r.json();
    expect(obs.metadata.sandbox, r.stdout + r.stderr).toBe("workspace-write");
    return { out: `${obs.data.stdout}${obs.data.stderr}`, stdout: obs.data.stdout as string };
  };

  it("~/.ssh, ~/.aws and ~/.netrc read as empty by default, and a repository's denyRead hides its .env; your notes and the workspace stay readable", async () => {
    ws = makeWorkspace({ "a.txt": "workspace file\n", ".env": "ENVSECRET\n", "keel.config.json": { sandbox: { denyRead: [".env"] } } });
    const env: NodeJS.ProcessEnv = { ...ws.env, HOME: makeHome() };
    env.KUBECONFIG = join(home!, "kube", "conf");
    writeFileSync(join(ws.keelHome, "config.json"), JSON.stringify({ sandbox: "workspace-write" }));
    const { out, stdout } = await bash(
      env,
      "cat ~/.ssh/id_ed25519 ~/.aws/credentials ~/.netrc ~/.codex/auth.json ~/.claude.json ~/kube/conf .env; ls -A ~/.ssh | wc -l; cat ~/notes.txt a.txt; " +
        "cat ~/.claude/settings.json ~/.gemini/settings.json ~/.codex/config.toml ~/.config/Code/User/mcp.json",
    );
    for (const secret of [
      "SSHSECRET",
      "AWSSECRET",
      "NETRCSECRET",
      "CODEXSECRET",
      "CLAUDEJSONSECRET",
      "KUBESECRET",
      "ENVSECRET",
      "CLAUDESETTINGSSECRET",
      "GEMINISECRET",
      "CODEXCONFIGSECRET",
      "VSCODESECRET",
    ])
      expect(out).not.toContain(secret);
    expect(stdout).toMatch(/^0$/m); // ~/.ssh is an empty folder inside
    expect(stdout).toContain("not a secret");
    expect(stdout).toContain("workspace file");
    // Outside the sandbox nothing changed.
    expect(readFileSync(join(home!, ".ssh", "id_ed25519"), "utf8")).toBe("SSHSECRET\n");
    expect(ws.read(".env")).toBe("ENVSECRET\n");

    // Your own config may show them (a repository's cannot: see sandbox.test.ts); the repository's denyRead still holds.
    writeFileSync(join(ws.keelHome, "config.json"), JSON.stringify({ sandbox: { mode: "workspace-write", credentials: "visible" } }));
    const shown = await bash(env, "cat ~/.ssh/id_ed25519 .env");
    expect(shown.out).toContain("SSHSECRET");
    expect(shown.out).not.toContain("ENVSECRET");
  });

  it("a project's Claude Code sandbox.filesystem.denyRead paths are hidden too (they only restrict); patterns are skipped with a warning", async () => {
    const h = makeHome();
    const abs = mkdtempSync("/var/tmp/keel-claude-deny-");
    try {
      writeFileSync(join(abs, "k.txt"), "ABSSECRET\n");
      mkdirSync(join(h, "private"));
      writeFileSync(join(h, "private", "p.txt"), "HOMESECRET\n");
      const denyRead = ["./secrets/**", `/${abs}`, "~/private", "/hooks-data", "**/.env"];
      ws = makeWorkspace({
        "secrets/s.txt": "PROJECTSECRET\n",
        ".claude/hooks-data/d.txt": "SETTINGSDIRSECRET\n",
        ".claude/settings.json": { sandbox: { enabled: true, filesystem: { denyRead } } },
        "a.txt": "workspace file\n",
      });
      writeFileSync(join(ws.keelHome, "config.json"), JSON.stringify({ sandbox: "workspace-write" }));
      const env = { ...ws.env, HOME: h };
      const { out, stdout } = await bash(env, `cat secrets/s.txt ${join(abs, "k.txt")} ~/private/p.txt .claude/hooks-data/d.txt a.txt ~/notes.txt`);
      for (const secret of ["PROJECTSECRET", "ABSSECRET", "HOMESECRET", "SETTINGSDIRSECRET"]) expect(out).not.toContain(secret);
      expect(stdout).toContain("workspace file");
      expect(stdout).toContain("not a secret");
      // The untrusted workspace's restriction applied; the pattern it could not is named, with the file.
      const list = await runKeel(["config", "list", "--prefix", "sandbox"], { cwd: ws.root, env });
      expect(list.stdout).toContain("sandbox.filesystem.denyRead[4]: Not hidden by keel's sandbox: a pattern");
      expect(list.stdout).toContain("(claude: .claude/settings.json)");
    } finally {
      rmSync(abs, { recursive: true, force: true });
    }
  });

  it("a project's Claude denyRead, or an untrusted workspace's dropped sandbox.credentials, never turns keel's sandbox on by itself", async () => {
    ws = makeWorkspace({
      ".claude/settings.json": { sandbox: { filesystem: { denyRead: ["./secrets"] } } },
      "keel.config.json": { sandbox: { credentials: "visible" } },
    });
    const r = await runKeel(["--yes", "--json", "call", "bash", "--input", JSON.stringify({ command: "echo ran" })], { cwd: ws.root, env: ws.env });
    const obs = r.json();
    expect(obs.data.stdout.trim()).toBe("ran");
    expect(obs.metadata.sandbox, r.stdout + r.stderr).toBeUndefined();
    // With your sandbox on, the project's paths are hidden as before.
    writeFileSync(join(ws.keelHome, "config.json"), JSON.stringify({ sandbox: "workspace-write" }));
    ws.write("secrets/s.txt", "PROJECTSECRET\n");
    const on = await runKeel(["--yes", "--json", "call", "bash", "--input", JSON.stringify({ command: "cat secrets/s.txt; echo done" })], {
      cwd: ws.root,
      env: ws.env,
    });
    expect(on.json().metadata.sandbox).toBe("workspace-write");
    expect(on.json().data.stdout).toContain("done");
    expect(JSON.stringify(on.json().data)).not.toContain("PROJECTSECRET");
  });

  it("a denied folder holding the workspace hides everything in it but the workspace, which stays writable", async () => {
    ws = makeWorkspace({});
    const base = mkdtempSync("/var/tmp/keel-holding-");
    try {
      const root = join(base, "proj");
      mkdirSync(join(root, ".keel"), { recursive: true });
      writeFileSync(join(root, "a.txt"), "workspace file\n");
      writeFileSync(join(base, "sibling.txt"), "SIBLINGSECRET\n");
      writeFileSync(join(ws.keelHome, "config.json"), JSON.stringify({ sandbox: { mode: "workspace-write", denyRead: [base] } }));
      const { out, stdout } = await bash({ ...ws.env, HOME: makeHome() }, `cat ${join(base, "sibling.txt")} a.txt; echo made > b.txt && cat b.txt`, root);
      expect(out).not.toContain("SIBLINGSECRET");
      expect(stdout).toContain("workspace file");
      expect(stdout).toContain("made");
      expect(readFileSync(join(root, "b.txt"), "utf8")).toBe("made\n");
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  it("a relative denyRead path is hidden in the main checkout too while a worktree is active (its .env is not in the worktree)", async () => {
    // Outside /tmp: the sandbox's private /tmp would hide a main checkout under it whole, and prove nothing.
    const root = mkdtempSync("/var/tmp/keel-wt-deny-");
    try {
      const git = (...args: string[]) => execFileSync("git", args, { cwd: root, env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" } });
      git("init", "-q", "-b", "main");
      git("config", "user.name", "keel test");
      git("config", "user.email", "test@keel.invalid");
      git("config", "commit.gpgsign", "false");
      writeFileSync(join(root, "a.txt"), "tracked\n");
      git("add", "a.txt");
      git("commit", "-q", "-m", "initial");
      writeFileSync(join(root, ".env"), "ENVSECRET\n"); // untracked: not in the worktree
      ws = makeWorkspace({});
      writeFileSync(join(ws.keelHome, "config.json"), JSON.stringify({ sandbox: { mode: "workspace-write", denyRead: [".env"] } }));
      const env = { ...ws.env, HOME: makeHome() };
      const entered = await runKeel(["worktree", "enter", "exp"], { cwd: root, env });
      expect(entered.exitCode, entered.stderr).toBe(0);
      const { out, stdout } = await bash(env, `pwd; cat ${join(root, ".env")} ../../../.env; cat a.txt`, root);
      expect(stdout).toContain(join(root, ".keel", "worktrees", "exp"));
      expect(stdout).toContain("tracked");
      expect(out).not.toContain("ENVSECRET");
      expect(readFileSync(join(root, ".env"), "utf8")).toBe("ENVSECRET\n");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('denyRead of "/" (or a relative path leading there) refuses the command, saying why, instead of a bwrap error about a missing bash', async () => {
    for (const denied of ["/", "../../../../../../../../.."]) {
      ws = makeWorkspace({ "keel.config.json": { sandbox: { denyRead: [denied] } } });
      writeFileSync(join(ws.keelHome, "config.json"), JSON.stringify({ sandbox: "workspace-write" }));
      const r = await runKeel(["--yes", "--json", "call", "bash", "--input", JSON.stringify({ command: "touch ran.txt" })], {
        cwd: ws.root,
        env: ws.env,
      });
      expect(r.json(), denied).toMatchObject({ ok: false, code: "precondition_failed" });
      expect(r.json().content).toMatch(/sandbox\.denyRead hides \/ .*The command was not run\. Remove "\/"/);
      expect(ws.exists("ran.txt")).toBe(false);
      ws.cleanup();
    }
    ws = undefined;
  });

  it("denyRead of a folder holding the shell or the system libraries refuses the command, naming the folder, instead of bwrap's execvp error", async () => {
    for (const denied of ["/usr", "/usr/lib"]) {
      ws = makeWorkspace({ "keel.config.json": { sandbox: { denyRead: [denied] } } });
      writeFileSync(join(ws.keelHome, "config.json"), JSON.stringify({ sandbox: "workspace-write" }));
      const r = await runKeel(["--yes", "--json", "call", "bash", "--input", JSON.stringify({ command: "touch ran.txt" })], { cwd: ws.root, env: ws.env });
      expect(r.json(), denied).toMatchObject({ ok: false, code: "precondition_failed" });
      expect(r.json().content).toContain(`sandbox.denyRead hides ${denied}, which holds the program or the system libraries it needs`);
      expect(ws.exists("ran.txt")).toBe(false);
      ws.cleanup();
    }
    ws = undefined;
  });

  it('denyRead: ["~"] with the workspace under your home: commands still run (your credential stores and $KEEL_HOME in it are hidden with it), the workspace stays writable', async () => {
    const h = makeHome();
    const root = join(h, "proj");
    mkdirSync(join(root, ".keel"), { recursive: true });
    writeFileSync(join(root, "a.txt"), "workspace file\n");
    writeFileSync(join(root, ".env"), "ENVSECRET\n");
    // $KEEL_HOME under the home folder too, as by default (~/.keel), with its session key.
    const keelHome = join(h, ".keel-home");
    mkdirSync(keelHome);
    writeFileSync(join(keelHome, "session-key"), "SESSIONKEYSECRET\n", { mode: 0o600 });
    writeFileSync(join(keelHome, "config.json"), JSON.stringify({ sandbox: { mode: "workspace-write", denyRead: ["~", ".env"] } }));
    ws = makeWorkspace({});
    const env = { ...ws.env, HOME: h, KEEL_HOME: keelHome };
    const { out, stdout } = await bash(
      env,
      `cat ~/.ssh/id_ed25519 ~/notes.txt ${join(keelHome, "session-key")} .env; cat a.txt; echo made > b.txt && cat b.txt`,
      root,
    );
    for (const secret of ["SSHSECRET", "not a secret", "SESSIONKEYSECRET", "ENVSECRET"]) expect(out).not.toContain(secret);
    expect(stdout).toContain("workspace file");
    expect(stdout).toContain("made");
    expect(readFileSync(join(root, "b.txt"), "utf8")).toBe("made\n");
  });
});
