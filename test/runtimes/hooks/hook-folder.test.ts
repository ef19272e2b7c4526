import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { rewriteMidSession } from "../../helpers/rewrite-script.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

// A hook runs in the folder its file belongs to, and `keel trust` pins the scripts it names from
// there: trusted from the root, it runs (and is not "changed") when keel starts in a subfolder.

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

const keelIn = (dir: string, ...args: string[]) => runKeel(["--json", "--yes", ...args], { cwd: ws!.path(dir), env: ws!.env });
const readIn = (dir: string, path = "notes.txt") => keelIn(dir, "call", "read_file", "--input", JSON.stringify({ path }));
const warningsIn = async (dir: string) => ((await keelIn(dir, "tools")).json().diagnostics as { message: string }[]).map((d) => d.message).join("\n");
const preRead = (command: string) => ({ PreToolUse: [{ matcher: "Read", hooks: [{ type: "command", command }] }] });

/** A bash hook script: notes the folder it ran in (relative to it) and its stdin, and blocks reads of secret.txt. */
const GUARD = [
  "#!/bin/bash",
  "input=$(cat)",
  "pwd > guard-ran-in.txt",
  'printf %s "$input" > guard-input.json',
  'case "$input" in *secret.txt*) echo "secret.txt stays closed" >&2; exit 2;; esac',
  "exit 0",
  "",
].join("\n");

/** A node hook script: notes the folder it ran in (relative to it). */
const CHECK = 'import { writeFileSync } from "node:fs";\nwriteFileSync("check-ran-in.txt", process.cwd());\n';

function makeProject(files: Record<string, string | object> = {}): TempWorkspace {
  const w = makeWorkspace(
    {
      "scripts/guard.sh": GUARD,
      ".claude/hooks/check.mjs": CHECK,
      ".claude/settings.json": { hooks: preRead("./scripts/guard.sh") },
      "keel.config.json": { hooks: preRead("node .claude/hooks/check.mjs") },
      "sub/dir/notes.txt": "hello\n",
      "sub/dir/secret.txt": "s3cret\n",
      ...files,
    },
    { under: "/var/tmp" },
  );
  chmodSync(w.path("scripts/guard.sh"), 0o755);
  w.git("init", "-q", "-b", "main");
  w.git("config", "user.name", "keel test");
  w.git("config", "user.email", "test@keel.invalid");
  return w;
}

describe("a workspace hook runs in its file's folder, pinned from there, wherever keel starts", () => {
  it("trusted from the root, .claude/settings.json and keel config hooks run from sub/dir, in the root, not reported as changed; exit 2 still blocks", async () => {
    ws = makeProject();
    const trusted = await keelIn(".", "trust");
    expect(trusted.exitCode, trusted.stderr).toBe(0);
    expect(trusted.json().approved).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: "hook", files: ["scripts/guard.sh"] }),
        expect.objectContaining({ kind: "hook", files: [".claude/hooks/check.mjs"] }),
      ]),
    );

    expect(await warningsIn("sub/dir")).not.toMatch(/added or changed/);
    const ok = await readIn("sub/dir");
    expect(ok.json(), ok.stderr).toMatchObject({ ok: true, phase: "done" });
    expect(ws.read("guard-ran-in.txt").trim()).toBe(ws.root);
    expect(ws.read("check-ran-in.txt")).toBe(ws.root);
    // The hook's stdin `cwd` is still where the session works; CLAUDE_PROJECT_DIR-free relative paths resolved at the root.
    expect(JSON.parse(ws.read("guard-input.json"))).toMatchObject({ cwd: ws.path("sub/dir"), tool_name: "Read" });

    const blocked = await readIn("sub/dir", "secret.txt");
    expect(blocked.json()).toMatchObject({ ok: false, phase: "hook", code: "tool_blocked" });
    expect(blocked.json().content).toContain("secret.txt stays closed");

    const listed = (await keelIn("sub/dir", "hooks")).json();
    expect(listed.hooks).toHaveLength(2);
    expect(listed.hooks).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ command: "node .claude/hooks/check.mjs", runs: true, cwd: ws.root }),
        expect.objectContaining({ command: "./scripts/guard.sh", runs: true, cwd: ws.root }),
      ]),
    );
  });

  it("a changed script is still reported as changed from a subfolder, and does not run", async () => {
    ws = makeProject();
    expect((await keelIn(".", "trust")).exitCode).toBe(0);
    ws.write("scripts/guard.sh", GUARD.replace("exit 0", "touch changed-ran; exit 0"));
    expect(await warningsIn("sub/dir")).toMatch(/hook PreToolUse `\.\/scripts\/guard\.sh` \(\.claude\/settings\.json\) was added or changed since/);
    expect((await readIn("sub/dir")).json()).toMatchObject({ ok: true });
    expect(ws.exists("guard-ran-in.txt")).toBe(false);
    expect(ws.exists("changed-ran")).toBe(false);
    // the unchanged hook of the keel config still runs
    expect(ws.read("check-ran-in.txt")).toBe(ws.root);
  });

  it("a script rewritten during a session started in a subfolder is held back, naming the script", async () => {
    ws = makeProject({
      "script.json": rewriteMidSession("../../scripts/guard.sh", GUARD.replace("exit 0", "touch rewritten-ran; exit 0")),
    });
    expect((await keelIn(".", "trust")).exitCode).toBe(0);
    const r = await runKeel(["--yes", "run", "--model", "scripted:script.json", "go"], { cwd: ws.path("sub/dir"), env: ws.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(ws.read("guard-ran-in.txt").trim()).toBe(ws.root);
    expect(ws.exists("rewritten-ran")).toBe(false);
    expect(r.stderr).toMatch(/PreToolUse hook `\.\/scripts\/guard\.sh` .* did not run: scripts\/guard\.sh changed since this workspace was trusted/);
  });

  it("under the OS sandbox (sandbox.workspaceCommands) too, a hook started from a subfolder runs in its folder (real bwrap)", async () => {
    ws = makeProject();
    ws.writeUserConfig({ sandbox: { workspaceCommands: true } });
    expect((await keelIn(".", "trust")).exitCode).toBe(0);
    const ok = await readIn("sub/dir");
    expect(ok.json(), ok.stderr).toMatchObject({ ok: true });
    expect(ws.read("guard-ran-in.txt").trim()).toBe(ws.root);
    expect((await readIn("sub/dir", "secret.txt")).json()).toMatchObject({ ok: false, phase: "hook", code: "tool_blocked" });
    const listed = (await keelIn("sub/dir", "hooks")).json();
    expect(listed.hooks.every((h: { sandboxed: boolean; runs: boolean }) => h.sandboxed && h.runs)).toBe(true);
  });

  it("in a managed worktree, the hook runs in the worktree's copy of its folder, checked against the same pins: a copy the session rewrote does not run", async () => {
    ws = makeProject({
      ".claude/settings.json": {
        hooks: {
          PreToolUse: [
            {
              matcher: "Read",
              hooks: [
                { type: "command", command: "./scripts/guard.sh" },
                { type: "command", command: 'echo "$CLAUDE_PROJECT_DIR" > project-dir.txt' },
              ],
            },
          ],
        },
      },
    });
    ws.git("add", "-A");
    ws.git("commit", "-q", "-m", "initial");
    expect((await keelIn(".", "trust")).exitCode).toBe(0);
    const entered = await keelIn(".", "worktree", "enter", "wt");
    expect(entered.exitCode, entered.stderr).toBe(0);
    const worktree = entered.json().path as string;
    // Unchanged, the worktree's copy matches the pin: it runs there (what it formats or tests is the worktree's), and blocks.
    expect((await readIn(".", "sub/dir/notes.txt")).json()).toMatchObject({ ok: true });
    expect(readFileSync(join(worktree, "guard-ran-in.txt"), "utf8").trim()).toBe(worktree);
    expect(ws.exists("guard-ran-in.txt")).toBe(false);
    expect(JSON.parse(readFileSync(join(worktree, "guard-input.json"), "utf8"))).toMatchObject({ cwd: worktree });
    // CLAUDE_PROJECT_DIR names the worktree's copy of the project too ("$CLAUDE_PROJECT_DIR"/scripts/x.sh is the experiment's).
    expect(readFileSync(join(worktree, "project-dir.txt"), "utf8").trim()).toBe(worktree);
    expect((await readIn(".", "sub/dir/secret.txt")).json()).toMatchObject({ ok: false, phase: "hook", code: "tool_blocked" });
    // Every write of the session lands in the worktree, its copy of the hook's script too: that copy no longer matches, and does not run.
    const rewrite = GUARD.replace("exit 0", "touch rewritten-ran; exit 0");
    expect((await keelIn(".", "call", "write_file", "--input", JSON.stringify({ path: "scripts/guard.sh", content: rewrite }))).json()).toMatchObject({
      ok: true,
    });
    const held = await readIn(".", "sub/dir/notes.txt");
    expect(held.json()).toMatchObject({ ok: true });
    expect(held.stderr).toMatch(/scripts\/guard\.sh changed since this workspace was trusted/);
    expect(ws.exists("rewritten-ran") || existsSync(join(worktree, "rewritten-ran"))).toBe(false);
  });

  it("in a managed worktree without the hook's folder, the hook does not run a script of the worktree's root that its pins never covered", async () => {
    // pkg/ is not committed: the worktree has no copy of it. Its hook runs ./check.sh when there (pinned as missing).
    ws = makeProject({ "pkg/.claude/settings.json": { hooks: preRead("[ -f ./check.sh ] && bash ./check.sh; true") }, "pkg/notes.txt": "x\n" });
    ws.git("add", "scripts", ".claude", "keel.config.json", "sub");
    ws.git("commit", "-q", "-m", "initial");
    expect((await keelIn("pkg", "trust")).exitCode).toBe(0);
    expect((await keelIn("pkg", "worktree", "enter", "wt")).exitCode).toBe(0);
    // A command of the session writes check.sh in the worktree's root (its boundary).
    writeFileSync(ws.path(".keel/worktrees/wt/check.sh"), `touch ${ws.path("planted-ran")}\n`);
    const r = await readIn("pkg", "sub/dir/notes.txt");
    expect(r.json(), r.stderr).toMatchObject({ ok: true });
    expect(ws.exists("planted-ran")).toBe(false);
  });

  it("a hook naming its script through $CLAUDE_PROJECT_DIR, rewritten in the main checkout during a session, does not run once the session enters a worktree", async () => {
    const rewrite = GUARD.replace("exit 0", 'touch "$(dirname "$0")/../rewritten-ran"; exit 0');
    const read = { toolCalls: [{ name: "read_file", arguments: { path: "sub/dir/notes.txt" } }] };
    ws = makeProject({
      ".claude/settings.json": { hooks: preRead('"$CLAUDE_PROJECT_DIR"/scripts/guard.sh') },
      "script.json": {
        turns: [
          read,
          { toolCalls: [{ name: "write_file", arguments: { path: "scripts/guard.sh", content: rewrite } }] },
          read,
          { toolCalls: [{ name: "worktree_enter", arguments: { name: "wt" } }] },
          read,
          { text: "done" },
        ],
      },
    });
    ws.git("add", "-A");
    ws.git("commit", "-q", "-m", "initial");
    expect((await keelIn(".", "trust")).exitCode).toBe(0);
    const r = await runKeel(["--yes", "run", "--model", "scripted:script.json", "go"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(ws.read("guard-ran-in.txt").trim()).toBe(ws.root);
    expect(ws.exists(".keel/worktrees/wt/scripts/guard.sh")).toBe(true);
    // The main checkout's script, rewritten, is what "$CLAUDE_PROJECT_DIR" names: the worktree's unchanged copy does not vouch for it.
    expect(ws.exists("rewritten-ran")).toBe(false);
  });

  it("in a managed worktree under the OS sandbox, with a denied folder holding the workspace, the hook runs its worktree copy and blocks; the main checkout stays readable, never writable (real bwrap)", async () => {
    ws = makeProject({ ".env": "ENVSECRET\n" });
    ws.git("add", "-A");
    ws.git("commit", "-q", "-m", "initial");
    // `denyRead: ["~"]` with the workspace under your home: here the folder holding the workspace (and $KEEL_HOME).
    ws.writeUserConfig({ sandbox: { mode: "workspace-write", denyRead: [dirname(ws.root), ".env"] } });
    expect((await keelIn(".", "trust")).exitCode).toBe(0);
    expect((await keelIn(".", "worktree", "enter", "wt")).exitCode).toBe(0);
    const blocked = await readIn(".", "sub/dir/secret.txt");
    expect(blocked.json(), blocked.stderr).toMatchObject({ ok: false, phase: "hook", code: "tool_blocked" });
    expect(blocked.json().content).toContain("secret.txt stays closed");
    // The main checkout is readable, never writable, and what denyRead names in it stays hidden.
    const bash = await keelIn(
      ".",
      "call",
      "bash",
      "--input",
      JSON.stringify({ command: `cat ${ws.path("sub/dir/notes.txt")} ${ws.path(".env")}; touch ${ws.path("planted")}; echo made > made.txt` }),
    );
    expect(bash.json().data.stdout).toContain("hello");
    expect(JSON.stringify(bash.json())).not.toContain("ENVSECRET");
    expect(ws.exists("planted")).toBe(false);
    // The worktree stays writable over it.
    expect(ws.read(".keel/worktrees/wt/made.txt")).toBe("made\n");
  });

  it("a keel config in a subfolder runs its hooks in its own folder, from any folder below it", async () => {
    ws = makeProject({ "pkg/keel.config.json": { hooks: preRead("./check.sh") }, "pkg/check.sh": "pwd > pkg-ran-in.txt\n", "pkg/src/notes.txt": "hi\n" });
    chmodSync(ws.path("pkg/check.sh"), 0o755);
    const trusted = await keelIn("pkg", "trust");
    expect(trusted.json().approved).toEqual(expect.arrayContaining([expect.objectContaining({ kind: "hook", files: ["pkg/check.sh"] })]));
    expect(await warningsIn("pkg/src")).not.toMatch(/added or changed/);
    expect((await readIn("pkg/src")).json()).toMatchObject({ ok: true });
    expect(ws.read("pkg/pkg-ran-in.txt").trim()).toBe(ws.path("pkg"));
  });

  it("a `.config/keelrc.json` belongs to the folder holding `.config`", async () => {
    ws = makeProject({ ".config/keelrc.json": { hooks: preRead("node .claude/hooks/check.mjs") } });
    rmSync(ws.path("keel.config.json"));
    expect((await keelIn(".", "trust")).exitCode).toBe(0);
    expect(await warningsIn("sub/dir")).not.toMatch(/added or changed/);
    expect((await readIn("sub/dir")).json()).toMatchObject({ ok: true });
    expect(ws.read("check-ran-in.txt")).toBe(ws.root);
  });

  it("a workspace plugin's hooks run in the workspace root (CLAUDE_PROJECT_DIR), as in Claude Code; your own hooks run in the session's folder, wherever keel starts", async () => {
    ws = makeProject({
      ".claude/settings.json": {},
      "keel.config.json": {},
      "plugins/probe/.claude-plugin/plugin.json": { name: "probe" },
      "plugins/probe/hooks/hooks.json": { hooks: preRead('bash "${CLAUDE_PLUGIN_ROOT}/hooks/probe.sh"') },
      "plugins/probe/hooks/probe.sh": 'pwd > plugin-ran-in.txt\necho "$CLAUDE_PROJECT_DIR" > plugin-project-dir.txt\n',
    });
    mkdirSync(ws.keelHome, { recursive: true });
    // Absolute: it runs in sub/dir, where a relative file would land.
    writeFileSync(join(ws.keelHome, "config.json"), JSON.stringify({ hooks: preRead(`pwd > "${ws.path("user-ran-in.txt")}"`) }));
    expect((await keelIn(".", "trust")).exitCode).toBe(0);
    expect((await readIn("sub/dir")).json()).toMatchObject({ ok: true });
    expect(ws.read("plugin-ran-in.txt").trim()).toBe(ws.root);
    expect(ws.read("plugin-project-dir.txt").trim()).toBe(ws.root);
    // Nothing of yours is pinned: your hook sees the folder you work in (a worktree, a package), as before.
    expect(ws.read("user-ran-in.txt").trim()).toBe(ws.path("sub/dir"));
    const listed = (await keelIn("sub/dir", "hooks", "--json")).json() as { hooks: { command: string; cwd: string | null }[] };
    expect(listed.hooks.find((h) => h.command.includes("user-ran-in"))?.cwd).toBeNull();
    expect(listed.hooks.find((h) => h.command.includes("probe.sh"))?.cwd).toBe(ws.root);
  });
});
