import { chownSync, chmodSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { useOpenAIServer } from "../../helpers/openai-server.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

// A script a user-level plugin's hook runs that does not exist yet, in a folder like /tmp where every user may add
// entries (the sticky bit guards only what is there), is one another user can make once keel has checked: it then runs
// as you. Their file is made with chown, which only root may use; elsewhere these tests are skipped.
const asRoot = process.geteuid?.() === 0;
/** The other user. */
const OTHER = 54321;

const server = useOpenAIServer();
let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

describe.skipIf(!asRoot)("a user-level plugin's hook whose script is missing where another user may make it", () => {
  it("is held back (a link in the plugin to it, or a path outside), so a script the other user makes after keel started never runs", async () => {
    ws = makeWorkspace({ "a.txt": "hi\n" });
    const shared = ws.path("..", "shared"); // plays /tmp: root's, sticky, every user may add entries
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    const ran = (name: string) => ws!.path("..", `${name}-ran`);
    ws.writeHome("plugins/guard/.claude-plugin/plugin.json", JSON.stringify({ name: "guard" }));
    ws.writeHome("plugins/guard/hooks/x", "");
    symlinkSync(join(shared, "linked.sh"), join(ws.keelHome, "plugins", "guard", "hooks", "linked.sh"));
    const hooks = [`bash "\${CLAUDE_PLUGIN_ROOT}/hooks/linked.sh"`, `bash ${join(shared, "direct.sh")}`];
    ws.writeHome(
      "plugins/guard/hooks/hooks.json",
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: "*", hooks: hooks.map((command) => ({ type: "command", command })) }] } }),
    );
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    // the other user makes both scripts when the model is first asked: after keel checked its plugins
    const plant = () => {
      for (const name of ["linked", "direct"]) {
        const file = join(shared, `${name}.sh`);
        if (existsSync(file)) continue;
        writeFileSync(file, `touch ${JSON.stringify(ran(name))}\n`);
        chownSync(file, OTHER, OTHER);
      }
      return true;
    };
    server.push({ match: plant, toolCalls: [{ name: "read_file", arguments: { path: "a.txt" } }] }, { text: "done" });
    const r = await runKeel(["--yes", "--json", "run", "read it"], { cwd: ws.root, env: ws.env });
    expect(existsSync(join(shared, "direct.sh")), String(r.stderr)).toBe(true);
    expect(existsSync(ran("linked"))).toBe(false);
    expect(existsSync(ran("direct"))).toBe(false);
  });

  it("says why: the missing file and the folder other users may add to", async () => {
    ws = makeWorkspace();
    const shared = ws.path("..", "shared");
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    ws.writeHome("plugins/linker/.claude-plugin/plugin.json", JSON.stringify({ name: "linker" }));
    symlinkSync(join(shared, "linked.sh"), join(ws.keelHome, "plugins", "linker", "linked.sh"));
    ws.writeHome("plugins/guard/.claude-plugin/plugin.json", JSON.stringify({ name: "guard" }));
    const direct = join(shared, "sub", "direct.sh");
    ws.writeHome("plugins/guard/hooks/hooks.json", JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: "command", command: `bash ${direct}` }] }] } }));
    const diagnostics = JSON.stringify((await runKeel(["tools", "--json"], { cwd: ws.root, env: ws.env })).json().diagnostics);
    expect(diagnostics).toContain(
      `${join(ws.keelHome, "plugins", "linker", "linked.sh")} does not exist, and ${shared} can be written by every user (mode 1777), so another user can put theirs at ${join(shared, "linked.sh")}`,
    );
    const hooks = async () => (await runKeel(["hooks", "--json"], { cwd: ws!.root, env: ws!.env })).json().hooks as { runs: boolean; why?: string }[];
    expect((await hooks())[0]!.why).toContain(
      `it runs ${direct}, outside the plugin's folder, and ${direct} does not exist, and ${shared} can be written by every user (mode 1777), so another user can put theirs at ${direct}`,
    );
    // that folder yours alone: nobody else can make the file, the hook runs and the plugin loads
    chmodSync(shared, 0o755);
    expect((await hooks()).map((h) => h.runs)).toEqual([true]);
    expect(JSON.stringify((await runKeel(["tools", "--json"], { cwd: ws.root, env: ws.env })).json().diagnostics)).not.toContain("linker");
  });
});
