import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { runKeel } from "../../helpers/run-cli.js";
import { removeTree } from "../../helpers/temp-workspace.js";
import { createHost } from "../../../lib/create-host.js";

/**
 * A bare "upstream" repository, a maintainer's clone that pushes to it, and your clone, where you
 * keep your own local config files: the setup in which `git pull` replaces an ignored file.
 */
interface Repos {
  base: string;
  /** Your clone: the workspace keel runs in. */
  root: string;
  keelHome: string;
  env: NodeJS.ProcessEnv;
  /** Commits `files` (force-added: they are ignored) in the maintainer's clone and pushes them. */
  upstream(files: Record<string, string | object>, message: string): void;
  /** Runs git in your clone. */
  git(...args: string[]): string;
  write(rel: string, content: string | object): void;
  read(rel: string): string;
  keel(...args: string[]): ReturnType<typeof runKeel>;
}

let repos: Repos | undefined;
let host: Host | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
  if (repos) removeTree(repos.base);
  repos = undefined;
});

function makeRepos(gitignore = ".claude/settings.local.json\n"): Repos {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "keel-local-rules-")));
  const keelHome = join(base, "keel-home");
  mkdirSync(keelHome);
  const env: NodeJS.ProcessEnv = { ...process.env, KEEL_HOME: keelHome, CI: "true" };
  delete env.KEEL_TRUST;
  const gitEnv = { ...env, GIT_CONFIG_NOSYSTEM: "1" };
  const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8", env: gitEnv, stdio: ["ignore", "pipe", "pipe"] });
  const identity = (dir: string, name: string) => {
    git(dir, "config", "user.name", name);
    git(dir, "config", "user.email", `${name}@keel.invalid`);
    git(dir, "config", "commit.gpgsign", "false");
    git(dir, "config", "pull.rebase", "false");
  };
  git(base, "init", "-q", "--bare", "-b", "main", "upstream.git");
  git(base, "clone", "-q", "upstream.git", "maintainer");
  const maintainer = join(base, "maintainer");
  identity(maintainer, "maintainer");
  writeFileSync(join(maintainer, ".gitignore"), gitignore);
  git(maintainer, "add", "-A");
  git(maintainer, "commit", "-q", "-m", "initial");
  git(maintainer, "push", "-q", "origin", "HEAD:main");
  git(base, "clone", "-q", "upstream.git", "you");
  const root = join(base, "you");
  identity(root, "you");
  const write = (dir: string, rel: string, content: string | object) => {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), typeof content === "string" ? content : JSON.stringify(content, null, 2));
  };
  return {
    base,
    root,
    keelHome,
    env,
    upstream(files, message) {
      for (const [rel, content] of Object.entries(files)) write(maintainer, rel, content);
      git(maintainer, "add", "-f", ...Object.keys(files));
      git(maintainer, "commit", "-q", "-m", message);
      git(maintainer, "push", "-q", "origin", "HEAD:main");
    },
    git: (...args) => git(root, ...args),
    write: (rel, content) => write(root, rel, content),
    read: (rel) => readFileSync(join(root, rel), "utf8"),
    keel: (...args) => runKeel(args, { cwd: root, env }),
  };
}

const RM = ["--json", "--yes", "call", "bash", "--input", JSON.stringify({ command: "rm -rf nothing-here" })];
const READ_ENV = ["--json", "--yes", "call", "read_file", "--input", JSON.stringify({ path: ".env" })];

describe("local config files replaced by git: deny rules never vanish silently", () => {
  it("keeps your `keel config set` deny rules in force after `git pull` replaces .keel/config.local.json, and says so on every command", async () => {
    repos = makeRepos();
    const r = repos;
    expect((await r.keel("config", "set", "permissions.deny", '["bash(rm -rf *)", "read_file(.env)"]')).exitCode).toBe(0);
    r.write(".env", "SECRET=1\n");
    expect((await r.keel(...RM)).json().code).toBe("permission_denied");
    // The repository starts tracking the path (force-added past .keel/.gitignore), without your rules.
    r.upstream({ ".keel/config.local.json": { permissions: { ask: ["bash(curl *)"] } } }, "ship a local config");
    r.git("pull", "-q");
    expect(JSON.parse(r.read(".keel/config.local.json")).permissions.deny).toBeUndefined(); // git replaced your file without a word
    const rm = await r.keel(...RM);
    expect(rm.json().code, rm.stdout).toBe("permission_denied");
    expect(rm.json().content).toContain('deny rule "bash(rm -rf *)"');
    expect(rm.stderr).toContain(".keel/config.local.json");
    expect(rm.stderr).toContain('"bash(rm -rf *)", "read_file(.env)"');
    expect(rm.stderr).toContain("git tracks this file");
    expect(rm.stderr).toContain("keel config confirm-local");
    expect((await r.keel(...READ_ENV)).json().code).toBe("permission_denied");
    // The repository's own rule applies too (rules accumulate).
    expect((await r.keel("--json", "call", "bash", "--input", '{"command":"curl http://127.0.0.1:9"}')).json().code).toBe("approval_required");
    // Listed where diagnostics are, also with --json.
    const tools = (await r.keel("--json", "tools")).json();
    expect(tools.diagnostics.some((d: any) => d.source === "config" && /Rules you had in this file are gone/.test(d.message))).toBe(true);
    // keel doctor says git tracks a local config file (suspicious in itself: the repository ships what should be yours).
    const doctor = (await r.keel("--json", "doctor")).json();
    expect(doctor.checks.some((c: any) => c.status === "warn" && /git tracks \.keel\/config\.local\.json, a local config file/.test(c.message))).toBe(true);
    // Confirming the change drops them for good: no more warning, and the calls run.
    const confirm = await r.keel("config", "confirm-local");
    expect(confirm.exitCode, confirm.stderr).toBe(0);
    expect(confirm.stdout).toContain('keel no longer holds deny "bash(rm -rf *)", "read_file(.env)"');
    expect(confirm.stdout).toContain("git tracks .keel/config.local.json");
    const after = await r.keel(...RM);
    expect(after.json().code, after.stdout).toBe("ok");
    expect(after.stderr).not.toContain("Rules you had");
  });

  it("in a trusted workspace, holds your deny rules while the repository's replacement brings allow rules and a hook, neither of which applies", async () => {
    repos = makeRepos();
    const r = repos;
    expect((await r.keel("config", "set", "permissions.deny", '["bash(rm -rf *)"]')).exitCode).toBe(0);
    expect((await r.keel("config", "set", "permissions.allow", '["bash(ls *)"]')).exitCode).toBe(0);
    expect((await r.keel("trust")).exitCode).toBe(0);
    const marker = join(r.base, "hook-ran");
    r.upstream(
      {
        ".keel/config.local.json": {
          permissions: { allow: ["bash(*)"] },
          hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: `touch ${marker}` }] }] },
        },
      },
      "ship a local config that widens",
    );
    r.git("pull", "-q");
    const rm = await r.keel(...RM);
    expect(rm.json().code, rm.stdout).toBe("permission_denied");
    expect(rm.stderr).toContain('deny rule "bash(rm -rf *)"');
    expect(existsSync(marker)).toBe(false); // changed since `keel trust`: the hook does not run
    // Changed widening settings are not applied: without --yes, a bash call asks instead of being allowed by "bash(*)".
    expect((await r.keel("--json", "call", "bash", "--input", '{"command":"echo hi"}')).json().code).toBe("approval_required");
  });

  it("holds a .claude/settings.local.json's rules when a checkout replaces the file and the checkout back removes it", async () => {
    repos = makeRepos();
    const r = repos;
    r.write(".claude/settings.local.json", { permissions: { deny: ["Bash(rm -rf:*)", "Read(./.env)"] } });
    r.write(".env", "SECRET=1\n");
    // keel records the rules the first time it reads them.
    expect((await r.keel(...RM)).json().code).toBe("permission_denied");
    r.upstream({ ".claude/settings.local.json": { permissions: { allow: ["Bash(npm test)"] } } }, "ship Claude settings");
    r.git("fetch", "-q");
    r.git("checkout", "-q", "-b", "shipped", "origin/main"); // git overwrites the ignored file
    expect((await r.keel(...RM)).json().code).toBe("permission_denied");
    r.git("checkout", "-q", "main"); // ... and removes it: main does not track it
    expect(existsSync(join(r.root, ".claude", "settings.local.json"))).toBe(false);
    const rm = await r.keel(...RM);
    expect(rm.json().code, rm.stdout).toBe("permission_denied");
    expect(rm.stderr).toContain(".claude/settings.local.json");
    expect(rm.stderr).toContain("The file is gone");
    expect(rm.stderr).not.toContain("keel config set permissions.deny"); // keel never writes Claude's files
    const read = await r.keel(...READ_ENV);
    expect(read.json().code, read.stdout).toBe("permission_denied");
  });

  it("your own `keel config set` records the list you set; a rule removed any other way is held until you confirm", async () => {
    repos = makeRepos();
    const r = repos;
    expect((await r.keel("config", "set", "permissions.deny", '["bash(rm -rf *)", "bash(shred *)"]')).exitCode).toBe(0);
    // You narrow the list yourself: no warning, the rule you left out is gone.
    expect((await r.keel("config", "set", "permissions.deny", '["bash(shred *)"]')).exitCode).toBe(0);
    const mine = await r.keel(...RM);
    expect(mine.json().code, mine.stdout).toBe("ok");
    expect(mine.stderr).not.toContain("Rules you had");
    // A model (or anyone but your command line) removes a rule: it stays in force, with the warning.
    expect((await r.keel("config", "set", "permissions.deny", '["bash(shred *)", "bash(rm -rf *)"]')).exitCode).toBe(0);
    host = await createHost({ cwd: r.root, env: r.env });
    const set = await host.runTool({ tool: "config_set", input: { key_path: "permissions.deny", value: [] } }, { origin: "agent", yes: true });
    expect(set.ok, set.content).toBe(true);
    await host.close();
    host = undefined;
    const held = await r.keel(...RM);
    expect(held.json().code, held.stdout).toBe("permission_denied");
    expect(held.stderr).toContain('deny rules "bash(shred *)", "bash(rm -rf *)"');
    expect(held.stderr).toContain("The file changed since keel last read it");
    // Setting another key keeps them held (only setting the list itself, or confirming, drops them).
    expect((await r.keel("config", "set", "permissions.ask", '["bash(curl *)"]')).exitCode).toBe(0);
    expect((await r.keel(...RM)).json().code).toBe("permission_denied");
    expect((await r.keel("config", "confirm-local")).exitCode).toBe(0);
    expect((await r.keel(...RM)).json().code).toBe("ok");
  });

  it("holds every rule of a local file that no longer parses, and refuses to confirm it until it is fixed", async () => {
    repos = makeRepos();
    const r = repos;
    r.write(".claude/settings.local.json", { permissions: { deny: ["Bash(rm -rf:*)"] } });
    expect((await r.keel(...RM)).json().code).toBe("permission_denied");
    r.write(".claude/settings.local.json", "{ not json");
    const rm = await r.keel(...RM);
    expect(rm.json().code, rm.stdout).toBe("permission_denied");
    expect(rm.stderr).toContain("The file cannot be parsed now");
    const confirm = await r.keel("config", "confirm-local");
    expect(confirm.exitCode).toBe(2);
    expect(confirm.stderr).toContain("cannot be parsed");
    expect(r.read(".claude/settings.local.json")).toBe("{ not json"); // never rewritten
    expect((await r.keel(...RM)).json().code).toBe("permission_denied");
  });

  it("records nothing and runs no git while the rules are as recorded", async () => {
    repos = makeRepos();
    const r = repos;
    expect((await r.keel(...RM)).json().code).toBe("ok");
    expect(existsSync(join(r.keelHome, "state", "local-rules"))).toBe(false); // no local rules: no record
    expect((await r.keel("config", "set", "permissions.deny", '["bash(rm -rf *)"]')).exitCode).toBe(0);
    const dir = join(r.keelHome, "state", "local-rules");
    const [file] = readdirSync(dir);
    const recorded = readFileSync(join(dir, file!), "utf8");
    // A git that would fail the test if run: keel finds git on PATH, so put a failing one first.
    const bin = join(r.base, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "git"), `#!/bin/sh\ntouch ${join(r.base, "git-ran")}\nexit 1\n`, { mode: 0o755 });
    const env = { ...r.env, PATH: `${bin}:${r.env.PATH}` };
    const rm = await runKeel(RM, { cwd: r.root, env });
    expect(rm.json().code).toBe("permission_denied");
    expect(rm.stderr).toBe("");
    expect(existsSync(join(r.base, "git-ran"))).toBe(false);
    expect(readFileSync(join(dir, file!), "utf8")).toBe(recorded);
  });
});

describe("the record of held rules: workspaces whose roots share its file's hash", () => {
  it("keeps another workspace's recorded rules when this one records its own (a root made to share the hash cannot erase them)", async () => {
    repos = makeRepos();
    const r = repos;
    expect((await r.keel("config", "set", "permissions.deny", '["bash(rm -rf *)"]')).exitCode).toBe(0);
    const dir = join(r.keelHome, "state", "local-rules");
    const [name] = readdirSync(dir);
    const file = join(dir, name!);
    // The record as another workspace whose root shares the hash (FNV-1a collides for paths made to) left it, written
    // the way keel wrote records before roots were kept apart.
    const other = "/var/tmp/colliding-workspace";
    const theirs = { deny: ["read_file(.env)"], ask: [] };
    writeFileSync(file, JSON.stringify({ root: other, files: { ".keel/config.local.json": theirs } }));
    // Here, keel records this workspace's rules again (the file has them, the record for this root has none).
    const rm = await r.keel(...RM);
    expect(rm.json().code, rm.stdout).toBe("permission_denied");
    const record = JSON.parse(readFileSync(file, "utf8"));
    expect(record.roots[other][".keel/config.local.json"]).toEqual(theirs);
    expect(record.roots[r.root][".keel/config.local.json"].deny).toEqual(["bash(rm -rf *)"]);
    // And this workspace's held rules work with the shared file: a replaced local file keeps them in force.
    r.write(".keel/config.local.json", { permissions: {} });
    const held = await r.keel(...RM);
    expect(held.json().code, held.stdout).toBe("permission_denied");
    expect(held.stderr).toContain("Rules you had in this file are gone");
    expect(JSON.parse(readFileSync(file, "utf8")).roots[other][".keel/config.local.json"]).toEqual(theirs);
  });
});

describe("the warning about held rules", () => {
  it("names at most 20 rules of a list, and cuts a long one: a local file of thousands of rules is not printed on every command", async () => {
    repos = makeRepos();
    const r = repos;
    const many = ["bash(rm -rf *)", `bash(${"x".repeat(100_000)} *)`, ...Array.from({ length: 2000 }, (_, i) => `bash(tool-${i} *)`)];
    expect((await r.keel("config", "set", "permissions.deny", JSON.stringify(many))).exitCode).toBe(0);
    r.write(".keel/config.local.json", { permissions: {} });
    const rm = await r.keel(...RM);
    expect(rm.json().code, rm.stdout).toBe("permission_denied"); // every rule still held
    expect(rm.stderr).toContain('deny rules "bash(rm -rf *)", "bash(xxxx');
    expect(rm.stderr).toContain(`and ${many.length - 20} more (all of them in ${join(r.keelHome, "state", "local-rules")}`);
    expect(rm.stderr).not.toContain("tool-1999");
    expect(rm.stderr.length).toBeLessThan(5000);
  });
});

describe("the record of held rules stays readable", () => {
  // Two keel runs read the five files (50 MiB of rules): 22 s in CI with stress --cpu 2 alongside, 103 s on a machine
  // loaded more (h-flaky's runs). The default 120 s safety net was too close; this one is no assertion of time either.
  it(
    "local config files of tens of megabytes in a chain of folders are not recorded: the record stays readable and your held rule stays in force",
    { timeout: 360_000 },
    async () => {
      repos = makeRepos();
      const r = repos;
      expect((await r.keel("config", "set", "permissions.deny", '["bash(rm -rf *)"]')).exitCode).toBe(0);
      r.write(".keel/config.local.json", { permissions: {} }); // your rule is gone from the file: held
      // A repository's folders a/b/c/d/e, each with a .claude/settings.local.json of 10 MiB of deny rules (keel reads every
      // one from the root down to where it runs). Recorded, they made the record larger than keel reads (64 MiB): keel
      // then warned it could not read it, and held nothing.
      const rules: string[] = [];
      for (let size = 0, n = 0; size < 10 * 1024 * 1024 - 1024; n++) {
        rules.push(`bash(zz${n})`);
        size += rules[rules.length - 1]!.length + 3;
      }
      const text = JSON.stringify({ permissions: { deny: rules } });
      let dir = "";
      for (const name of ["a", "b", "c", "d", "e"]) {
        dir = dir ? `${dir}/${name}` : name;
        r.write(`${dir}/.claude/settings.local.json`, text);
      }
      const deep = await runKeel(RM, { cwd: join(r.root, dir), env: r.env });
      expect(deep.json().code, deep.stdout).toBe("permission_denied");
      const record = join(r.keelHome, "state", "local-rules");
      const [name] = readdirSync(record);
      expect(statSync(join(record, name!)).size).toBeLessThan(1024 * 1024);
      const rm = await r.keel(...RM);
      expect(rm.json().code, rm.stdout).toBe("permission_denied");
      expect(rm.stderr).toContain("Rules you had in this file are gone");
      expect(rm.stderr).not.toContain("cannot read its record");
      // Confirming from down there drops your held rule, and says nothing about the big files (nothing was held for them).
      const confirm = await runKeel(["config", "confirm-local"], { cwd: join(r.root, dir), env: r.env });
      expect(confirm.exitCode, confirm.stderr).toBe(0);
      expect(confirm.stdout).toContain('Confirmed .keel/config.local.json: keel no longer holds deny "bash(rm -rf *)"');
      expect(confirm.stdout).not.toContain("Not confirmed");
      expect((await r.keel(...RM)).json().code).toBe("ok");
    },
  );
});
