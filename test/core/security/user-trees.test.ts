import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { KEEL_BIN, runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

// Files of another user are made with chown, and keel is run as another user with util-linux's setpriv: only root
// may do either, so those tests are skipped elsewhere.
const asRoot = process.geteuid?.() === 0;
/** The other user: any uid that is not ours, not root's and not SUDO_UID. A gid of that number is in no /etc/group. */
const OTHER = 54321;
/** The user keel runs as in the setpriv test (a non-root uid, so that file modes bite). */
const USER = 1000;

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

/** Writes `rel` (a file) under `$KEEL_HOME`, making its folders. */
const put = (rel: string, content: string): string => ws!.writeHome(rel, content);

const env = () => ({ ...ws!.env, SUDO_UID: undefined });
const HOOKS = JSON.stringify({ hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: 'sh "${CLAUDE_PLUGIN_ROOT}/hooks/check.sh"' }] }] } });

/** `keel --yes call read_file a.txt` in the workspace as USER (setpriv), `$HOME` the folder above `$KEEL_HOME`. */
function readAsUser() {
  const args = ["--reuid", String(USER), "--regid", String(USER), "--clear-groups", process.execPath, KEEL_BIN];
  return execa("setpriv", [...args, "--yes", "call", "read_file", "--input", '{"path":"a.txt"}'], {
    cwd: ws!.root,
    env: { ...env(), HOME: dirname(ws!.keelHome) },
    extendEnv: false,
    reject: false,
    stdin: "ignore",
  });
}
type Diag = { file?: string; message: string; severity?: string };

describe("every file of a user-level plugin or skill folder must be yours (scripts it runs, modules it imports)", () => {
  it("a plugin whose hook script every user may write is skipped: its hooks do not run", async () => {
    ws = makeWorkspace();
    const root = join(ws.keelHome, "plugins", "guard");
    put("plugins/guard/.claude-plugin/plugin.json", JSON.stringify({ name: "guard" }));
    put("plugins/guard/hooks/hooks.json", HOOKS);
    const script = put("plugins/guard/hooks/check.sh", "exit 0\n");
    chmodSync(script, 0o666);

    const out = await runKeel(["plugins", "--json"], { cwd: ws.root, env: env() });
    const diag = (out.json().diagnostics as Diag[]).find((d) => d.message.includes(`The user-level plugin ${root} was skipped`));
    expect(diag?.message).toContain(`${script} can be written by every user (mode 666)`);
    expect(diag?.message).toContain("chmod -R go-w");
    expect((await runKeel(["hooks", "--json"], { cwd: ws.root, env: env() })).json().hooks).toEqual([]);
    // yours and writable by you only, it loads
    chmodSync(script, 0o644);
    expect((await runKeel(["hooks", "--json"], { cwd: ws.root, env: env() })).json().hooks).toHaveLength(1);
  });

  it("a plugin too big to check (a node_modules/ of 20000+ entries) is skipped with what makes it checkable, not ownership advice", async () => {
    ws = makeWorkspace();
    const root = join(ws.keelHome, "plugins", "big");
    put(
      "plugins/big/.claude-plugin/plugin.json",
      JSON.stringify({ name: "big", virtual_tools: [{ name: "big_v", description: "d", response_template: "x" }] }),
    );
    for (let i = 0; i < 101; i++) {
      const dir = join(root, "node_modules", `p${i}`);
      mkdirSync(dir, { recursive: true });
      for (let j = 0; j < 199; j++) writeFileSync(join(dir, `f${j}.js`), "");
    }
    const out = await runKeel(["tools", "--json"], { cwd: ws.root, env: env() });
    expect(out.json().tools.map((t: { name: string }) => t.name)).not.toContain("big_v");
    const diag = (out.json().diagnostics as Diag[]).find((d) => d.message.includes(`The user-level plugin ${root} was skipped`));
    expect(diag?.message).toContain(`${root} holds more than 20000 files and folders`);
    expect(diag?.message).toContain("npm prune --omit=dev");
    // every file is yours already: `chown -R` would not help, so it is not what the message says to do
    expect(diag?.message).not.toContain("chown");
    expect(diag?.message).not.toContain("too big to check:");
  });

  it("a code plugin whose main module imports a module every user may write is not loaded", async () => {
    ws = makeWorkspace();
    put("plugins/coded/plugin.json", JSON.stringify({ name: "coded", main: "./index.mjs" }));
    put("plugins/coded/index.mjs", `import { tool } from "./lib/tool.mjs";\nexport function apply(keel) { keel.registerTool(tool); }\n`);
    const lib = put(
      "plugins/coded/lib/tool.mjs",
      `export const tool = { name: "coded_tool", description: "x", inputSchema: { type: "object" }, execute: () => "x" };\n`,
    );
    chmodSync(lib, 0o666);

    const tools = await runKeel(["tools", "--json"], { cwd: ws.root, env: env() });
    expect(tools.json().tools.map((t: { name: string }) => t.name)).not.toContain("coded_tool");
    expect(JSON.stringify(tools.json().diagnostics)).toContain(`${lib} can be written by every user (mode 666)`);
    chmodSync(lib, 0o644);
    const again = await runKeel(["tools", "--json"], { cwd: ws.root, env: env() });
    expect(again.json().tools.map((t: { name: string }) => t.name)).toContain("coded_tool");
  });

  it("a skill whose script every user may write is skipped; a link out of the folder is judged where it leads", async () => {
    ws = makeWorkspace();
    put("skills/deploy/SKILL.md", "---\ndescription: deploys\n---\nRun scripts/go.sh.\n");
    const script = put("skills/deploy/scripts/go.sh", "echo go\n");
    chmodSync(script, 0o666);
    put("skills/linked/SKILL.md", "---\ndescription: linked\n---\nRead notes.md.\n");
    // notes.md leads into a folder every user may write (no sticky bit): anyone can swap the file it leads to
    const open = ws.path("open");
    mkdirSync(open);
    writeFileSync(join(open, "notes.md"), "mine\n");
    chmodSync(open, 0o777);
    symlinkSync(join(open, "notes.md"), join(ws.keelHome, "skills", "linked", "notes.md"));
    put("skills/fine/SKILL.md", "---\ndescription: fine\n---\nFine.\n");

    const tools = await runKeel(["tools", "--json"], { cwd: ws.root, env: env() });
    const diagnostics: Diag[] = tools.json().diagnostics;
    const about = (name: string) => diagnostics.find((d) => d.file === join(ws!.keelHome, "skills", name, "SKILL.md"))?.message;
    expect(about("deploy")).toContain(`The user-level skill was skipped: ${script} can be written by every user (mode 666)`);
    expect(about("linked")).toContain(`${open} can be written by every user (mode 777), a folder above ${join(open, "notes.md")}`);
    expect(about("fine")).toBeUndefined();
    // the skill tool is registered: one skill (fine) loaded
    expect(tools.json().tools.map((t: { name: string }) => t.name)).toContain("skill");
  });

  it.skipIf(!asRoot)("a plugin folder its group may write is refused unless that group is its owner's alone; another user's file in it too", async () => {
    ws = makeWorkspace();
    const root = join(ws.keelHome, "plugins", "team");
    put("plugins/team/plugin.json", JSON.stringify({ name: "team" }));
    const hooks = join(root, "hooks");
    mkdirSync(hooks);
    chownSync(hooks, process.geteuid!(), OTHER); // a group that is not yours alone (here: in no /etc/group at all)
    chmodSync(hooks, 0o775);
    put("plugins/other/plugin.json", JSON.stringify({ name: "other" }));
    const theirs = put("plugins/other/lib.mjs", "export {};\n");
    chownSync(theirs, OTHER, OTHER);

    const out = await runKeel(["plugins", "--json"], { cwd: ws.root, env: env() });
    const text = JSON.stringify(out.json().diagnostics);
    expect(text).toContain(`${hooks} can be written by its group (gid ${OTHER}, mode 775), which is not a group of its owner alone`);
    expect(text).toContain(`${theirs} belongs to another user (uid ${OTHER})`);
    chmodSync(hooks, 0o755);
    const again = await runKeel(["plugins", "--json"], { cwd: ws.root, env: env() });
    expect(JSON.stringify(again.json().diagnostics)).not.toContain(hooks);
  });

  it.skipIf(!asRoot)("run as a non-root user (setpriv), a hook script another user rewrote does not run", async () => {
    execFileSync("setpriv", ["--version"]);
    ws = makeWorkspace({ "a.txt": "hi\n" });
    const marker = ws.path("ran");
    put("plugins/guard/.claude-plugin/plugin.json", JSON.stringify({ name: "guard" }));
    put("plugins/guard/hooks/hooks.json", HOOKS);
    // what the other user wrote into the script every user may write
    const script = put("plugins/guard/hooks/check.sh", `touch ${JSON.stringify(marker)}; exit 0\n`);
    execFileSync("chown", ["-R", `${USER}:${USER}`, dirname(ws.keelHome)]); // the workspace and $KEEL_HOME are USER's
    chmodSync(script, 0o666);
    const r = await readAsUser();
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(existsSync(marker)).toBe(false);
    // the same script, writable by USER only, runs: the test does exercise the hook
    chmodSync(script, 0o644);
    const ok = await readAsUser();
    expect(ok.exitCode, String(ok.stderr)).toBe(0);
    expect(existsSync(marker)).toBe(true);
  });
});
