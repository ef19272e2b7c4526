import { chmodSync, mkdtempSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { execFileSync } from "node:child_process";
import { onTestFinished } from "vitest";

/** A temporary workspace (its own KEEL_HOME too) for one test. */
export interface TempWorkspace {
  /** Real path of the workspace root. */
  root: string;
  /** A private `$KEEL_HOME` (never the developer's ~/.keel). */
  keelHome: string;
  /** Environment for child processes and hosts: KEEL_HOME set, KEEL_TRUST and KEEL_CALL unset. */
  env: NodeJS.ProcessEnv;
  /** Writes a file (creating folders); objects are written as JSON. */
  write(rel: string, content: string | object): string;
  read(rel: string): string;
  exists(rel: string): boolean;
  path(...rel: string[]): string;
  /** Writes a file under `$KEEL_HOME` (creating folders): a user-level plugin, skill or hooks file. Returns its path. */
  writeHome(rel: string, content: string): string;
  /** Writes the user-level config (`$KEEL_HOME/config.json`): where a user puts a model endpoint, which a workspace may not set until trusted. */
  writeUserConfig(config: object): void;
  /** Runs git in the workspace (after `git: true`). */
  git(...args: string[]): string;
  cleanup(): void;
}

/**
 * Creates a temp workspace with files; `git: true` makes it a repo with one commit and a local identity.
 * `under` is the folder it is made in (default the OS temp folder; `/var/tmp` for one a sandboxed process must see).
 */
export function makeWorkspace(files: Record<string, string | object> = {}, opts: { git?: boolean; marker?: boolean; under?: string } = {}): TempWorkspace {
  const base = realpathSync(mkdtempSync(join(opts.under ?? tmpdir(), "keel-test-")));
  const root = join(base, "ws");
  const keelHome = join(base, "keel-home");
  mkdirSync(root, { recursive: true });
  mkdirSync(keelHome, { recursive: true });
  const env: NodeJS.ProcessEnv = { ...process.env, KEEL_HOME: keelHome, CI: "true" };
  delete env.KEEL_TRUST;
  // Tests run from a keel bash call (keel developing keel) are not themselves inside one.
  delete env.KEEL_CALL;
  const ws: TempWorkspace = {
    root,
    keelHome,
    env,
    write(rel, content) {
      const file = join(root, rel);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content, null, 2));
      return file;
    },
    read: (rel) => readFileSync(join(root, rel), "utf8"),
    exists: (rel) => existsSync(join(root, rel)),
    path: (...rel) => join(root, ...rel),
    writeHome(rel, content) {
      const file = join(keelHome, rel);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
      return file;
    },
    writeUserConfig: (config) => writeFileSync(join(keelHome, "config.json"), JSON.stringify(config, null, 2)),
    git: (...args) => execFileSync("git", args, { cwd: root, encoding: "utf8", env: { ...env, GIT_CONFIG_NOSYSTEM: "1" } }),
    cleanup: () => removeTree(base),
  };
  if (opts.marker !== false && !opts.git) mkdirSync(join(root, ".keel"), { recursive: true });
  for (const [rel, content] of Object.entries(files)) ws.write(rel, content);
  if (opts.git) {
    ws.git("init", "-q", "-b", "main");
    ws.git("config", "user.name", "keel test");
    ws.git("config", "user.email", "test@keel.invalid");
    ws.git("config", "commit.gpgsign", "false");
    ws.git("add", "-A");
    ws.git("commit", "-q", "--allow-empty", "-m", "initial");
  }
  return ws;
}

/** Removes a temp tree, also one holding read-only folders (keel's pinned copies of code plugins under `$KEEL_HOME/state/code-plugins/`). */
export function removeTree(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true });
    return;
  } catch {
    // A read-only folder inside: give the folders write permission back, then remove.
  }
  const dirs = [dir];
  for (let i = 0; i < dirs.length; i++) {
    try {
      chmodSync(dirs[i]!, 0o755);
      for (const e of readdirSync(dirs[i]!, { withFileTypes: true })) if (e.isDirectory()) dirs.push(join(dirs[i]!, e.name));
    } catch {
      // Not ours, or gone.
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

/** A new empty temp folder (`prefix` + random), removed when the current test ends. */
export function tempDirForTest(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onTestFinished(() => removeTree(dir));
  return dir;
}
