import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runKeelProcess } from "../../helpers/run-cli.js";
import { makeWorkspace, removeTree, type TempWorkspace } from "../../helpers/temp-workspace.js";

// Runs the real bubblewrap (`bwrap`) and git, which .ci/run installs. keel starts bwrap, its own git, the
// bash of an unsandboxed hook and an unsandboxed stdio server outside the sandbox: a program of that name in
// a workspace folder on PATH (`npx keel` puts the project's node_modules/.bin first; direnv's PATH_add bin),
// which a sandboxed command can write, must never be the one started.

let ws: TempWorkspace | undefined;
let marks: string | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
  if (marks) removeTree(marks);
  marks = undefined;
});

const PROBE = fileURLToPath(new URL("../../runtimes/mcp/fixtures/probe-server.mjs", import.meta.url));

/** A planted `name`: notes that it ran, then runs the real program so nothing else changes. */
function plant(dir: string, name: string, marksDir: string): void {
  const real = execFileSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).trim();
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), `#!/bin/sh\ntouch "${join(marksDir, name)}"\nexec "${real}" "$@"\n`);
  chmodSync(join(dir, name), 0o755);
}

describe("programs keel starts outside the sandbox are never looked up in the workspace (real CLI, bwrap, git)", () => {
  it("bwrap, git, a hook's bash and a server's node come from PATH folders outside the workspace, also through a relative PATH entry", async () => {
    marks = mkdtempSync("/var/tmp/keel-planted-");
    ws = makeWorkspace({ "notes.txt": "hi\n" }, { git: true });
    for (const name of ["bwrap", "git", "bash", "node"]) plant(ws.path("node_modules/.bin"), name, marks);
    mkdirSync(ws.keelHome, { recursive: true });
    // Your own config: the sandbox on, an unsandboxed hook of yours and a stdio server of yours started by name.
    writeFileSync(
      join(ws.keelHome, "config.json"),
      JSON.stringify({
        sandbox: "workspace-write",
        hooks: { PreToolUse: [{ matcher: "Read", hooks: [{ type: "command", command: `echo ran > "${join(marks, "hook-ran")}"` }] }] },
      }),
    );
    writeFileSync(join(ws.keelHome, "mcp.json"), JSON.stringify({ mcpServers: { plain: { command: "node", args: [PROBE] } } }));
    for (const path of [`${ws.path("node_modules/.bin")}:${process.env.PATH}`, `node_modules/.bin:${process.env.PATH}`]) {
      const env = { ...ws.env, PATH: path };
      const keel = (...args: string[]) => runKeelProcess(["--json", "--yes", ...args], { cwd: ws!.root, env });
      const bash = await keel("call", "bash", "--input", JSON.stringify({ command: "echo sandboxed" }));
      expect(bash.json(), bash.stderr).toMatchObject({ ok: true, metadata: { sandbox: "workspace-write" } });
      expect(bash.json().content).toContain("sandboxed");
      const read = await keel("call", "read_file", "--input", JSON.stringify({ path: "notes.txt" }));
      expect(read.json(), read.stderr).toMatchObject({ ok: true });
      expect(existsSync(join(marks, "hook-ran")), "your hook ran").toBe(true);
      const entered = await keel("worktree", "enter", path.startsWith("/") ? "abs" : "rel");
      expect(entered.exitCode, entered.stdout).toBe(0);
      const left = await keel("worktree", "exit", "--action", "discard");
      expect(left.exitCode, left.stdout).toBe(0);
      const probe = await keel("call", "mcp__plain__env", "--input", JSON.stringify({ name: "HOME" }));
      expect(probe.json(), probe.stderr).toMatchObject({ ok: true });
      expect(["bwrap", "git", "bash", "node"].filter((name) => existsSync(join(marks!, name)))).toEqual([]);
    }
  });

  it("what keel's git starts in turn (a git-lfs filter your git config names) is never found in the workspace either", async () => {
    marks = mkdtempSync("/var/tmp/keel-planted-");
    ws = makeWorkspace({ "data.bin": "payload\n", ".gitattributes": "*.bin filter=lfs\n" }, { git: true });
    // Your git-lfs, outside the workspace (it notes that it ran), and your global git config, as `git lfs install` writes it.
    const system = join(marks, "system-bin");
    mkdirSync(system);
    writeFileSync(join(system, "git-lfs"), `#!/bin/sh\ntouch "${join(marks, "system-git-lfs")}"\nexec cat\n`);
    chmodSync(join(system, "git-lfs"), 0o755);
    writeFileSync(join(marks, "gitconfig"), '[filter "lfs"]\n\tclean = git-lfs clean -- %f\n\tsmudge = git-lfs smudge -- %f\n');
    mkdirSync(ws.path("node_modules/.bin"), { recursive: true });
    writeFileSync(ws.path("node_modules/.bin/git-lfs"), `#!/bin/sh\ntouch "${join(marks, "planted-git-lfs")}"\nexec cat\n`);
    chmodSync(ws.path("node_modules/.bin/git-lfs"), 0o755);
    const env = { ...ws.env, GIT_CONFIG_GLOBAL: join(marks, "gitconfig"), PATH: `${ws.path("node_modules/.bin")}:${system}:${process.env.PATH}` };
    const entered = await runKeelProcess(["worktree", "enter", "lfs"], { cwd: ws.root, env });
    expect(entered.exitCode, entered.stderr).toBe(0);
    expect(existsSync(join(marks, "planted-git-lfs")), "the workspace's git-lfs ran").toBe(false);
    expect(existsSync(join(marks, "system-git-lfs")), "the checkout ran your git-lfs").toBe(true);
    const left = await runKeelProcess(["worktree", "exit", "--action", "discard"], { cwd: ws.root, env });
    expect(left.exitCode, left.stderr).toBe(0);
    expect(existsSync(join(marks, "planted-git-lfs")), "the workspace's git-lfs ran").toBe(false);
  });

  it("an unsandboxed server's `#!/usr/bin/env node` program (npx, an npm -g install) never gets the workspace's node", async () => {
    marks = mkdtempSync("/var/tmp/keel-planted-");
    ws = makeWorkspace({ "notes.txt": "hi\n" }, { git: true });
    const system = join(marks, "system-bin");
    mkdirSync(system);
    writeFileSync(join(system, "probe-mcp"), `#!/usr/bin/env node\nimport(${JSON.stringify(PROBE)});\n`);
    chmodSync(join(system, "probe-mcp"), 0o755);
    plant(ws.path("node_modules/.bin"), "node", marks);
    mkdirSync(ws.keelHome, { recursive: true });
    writeFileSync(join(ws.keelHome, "mcp.json"), JSON.stringify({ mcpServers: { plain: { command: "probe-mcp" } } }));
    const env = { ...ws.env, PATH: `${ws.path("node_modules/.bin")}:${system}:${process.env.PATH}` };
    const probe = await runKeelProcess(["--json", "--yes", "call", "mcp__plain__env", "--input", JSON.stringify({ name: "PATH" })], { cwd: ws.root, env });
    expect(probe.json(), probe.stderr).toMatchObject({ ok: true });
    expect(existsSync(join(marks, "node")), "the workspace's node ran the server").toBe(false);
    expect(probe.json().content).not.toContain(ws.path("node_modules"));
  });

  it("what an unsandboxed hook of yours runs by name (`jq`, `git`) is never the workspace's, also through a relative PATH entry", async () => {
    marks = mkdtempSync("/var/tmp/keel-planted-");
    ws = makeWorkspace({ "notes.txt": "hi\n" }, { git: true });
    const system = join(marks, "system-bin");
    mkdirSync(system);
    for (const [dir, mark] of [
      [system, "system-tool"],
      [ws.path("node_modules/.bin"), "planted-tool"],
    ] as const) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "fmt-tool"), `#!/bin/sh\ntouch "${join(marks, mark)}"\n`);
      chmodSync(join(dir, "fmt-tool"), 0o755);
    }
    mkdirSync(ws.keelHome, { recursive: true });
    writeFileSync(
      join(ws.keelHome, "config.json"),
      JSON.stringify({
        hooks: { PreToolUse: [{ matcher: "Read", hooks: [{ type: "command", command: `fmt-tool; echo "$PATH" > "${join(marks, "hook-path")}"` }] }] },
      }),
    );
    for (const first of [ws.path("node_modules/.bin"), "node_modules/.bin"]) {
      const env = { ...ws.env, PATH: `${first}:${system}:${process.env.PATH}` };
      const read = await runKeelProcess(["--json", "call", "read_file", "--input", JSON.stringify({ path: "notes.txt" })], { cwd: ws.root, env });
      expect(read.json(), read.stderr).toMatchObject({ ok: true });
      expect(existsSync(join(marks, "planted-tool")), "the workspace's fmt-tool ran").toBe(false);
      expect(existsSync(join(marks, "system-tool")), "your fmt-tool ran").toBe(true);
      const entries = readFileSync(join(marks, "hook-path"), "utf8").trim().split(":");
      expect(entries.filter((entry) => !entry.startsWith("/") || entry.startsWith(ws!.root))).toEqual([]);
    }
  });

  it("a git found in a folder whose name holds a space (which simple-git refuses as a binary path) still runs keel's worktrees", async () => {
    marks = mkdtempSync("/var/tmp/keel-spaced-");
    ws = makeWorkspace({ "notes.txt": "hi\n" }, { git: true });
    const real = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
    const tools = join(marks, "my tools");
    mkdirSync(tools);
    writeFileSync(join(tools, "git"), `#!/bin/sh\ntouch "${join(marks, "spaced-git-ran")}"\nexec "${real}" "$@"\n`);
    chmodSync(join(tools, "git"), 0o755);
    const env = { ...ws.env, PATH: `${tools}:${process.env.PATH}` };
    const entered = await runKeelProcess(["--json", "worktree", "enter", "spaced"], { cwd: ws.root, env });
    expect(entered.exitCode, entered.stdout).toBe(0);
    expect(existsSync(join(marks, "spaced-git-ran")), "the git first on PATH is the one run").toBe(true);
  });
});
