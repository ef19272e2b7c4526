import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { KEEL_BIN, runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

// A user-level plugin's hook or MCP server that runs a script outside the plugin's folder runs it as you: that file,
// and the folders above it, must be yours as the plugin's own files must. Files of other users are made with chown and
// setpriv, which only root may use; elsewhere these tests are skipped.
const asRoot = process.geteuid?.() === 0;
/** The other user, and the shared group: a gid in no /etc/group, so never anyone's private group. */
const OTHER = 54321;
/** The user keel runs as in the setpriv test (a non-root uid, so that file modes bite). */
const USER = 1000;
/** A real MCP server (the SDK over stdio) with a `whoami` tool. */
const SDK_SERVER = resolve("test/fixtures/claude-plugin-layouts/plugins/shipit/server.mjs");

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

const env = (w: TempWorkspace) => ({ ...w.env, SUDO_UID: undefined });
type Diag = { source: string; message: string; file?: string };

/** A user-level plugin "guard" whose PreToolUse hook runs `hook` and whose MCP server "helper" is `node server`. */
function guardPlugin(w: TempWorkspace, hook: string, server?: string): string {
  w.writeHome(
    "plugins/guard/.claude-plugin/plugin.json",
    JSON.stringify({ name: "guard", ...(server ? { mcpServers: { helper: { command: "node", args: [server] } } } : {}) }),
  );
  w.writeHome("plugins/guard/hooks/hooks.json", JSON.stringify({ hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: hook }] }] } }));
  return join(w.keelHome, "plugins", "guard");
}

describe.skipIf(!asRoot)("a user-level plugin's hook or MCP server that runs a file outside the plugin", () => {
  it("run as a non-root user (setpriv), scripts in a folder a shared group may write, swapped by a member, do not run: the hook and the server are held back", async () => {
    execFileSync("setpriv", ["--version"]);
    ws = makeWorkspace({ "a.txt": "hi\n" });
    const tools = ws.path("..", "tools"); // plays /opt/tools
    const hookRan = ws.path("..", "hook-ran");
    const serverRan = ws.path("..", "server-ran");
    const plugin = guardPlugin(ws, `bash ${tools}/check.sh`, `${tools}/server.mjs`);
    mkdirSync(tools);
    execFileSync("chown", ["-R", `${USER}:${USER}`, dirname(ws.keelHome)]); // the workspace, $KEEL_HOME and tools are USER's
    chownSync(tools, USER, OTHER);
    chmodSync(tools, 0o775);
    // the other user, a member of the tools folder's group, put their scripts there (theirs: chown)
    writeFileSync(join(tools, "check.sh"), `touch ${JSON.stringify(hookRan)}; exit 0\n`);
    writeFileSync(
      join(tools, "server.mjs"),
      `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(serverRan)}, "");\nawait import(${JSON.stringify(SDK_SERVER)});\n`,
    );
    for (const f of ["check.sh", "server.mjs"]) chownSync(join(tools, f), OTHER, OTHER);

    const keel = (...args: string[]) =>
      execa("setpriv", ["--reuid", String(USER), "--regid", String(USER), "--clear-groups", process.execPath, KEEL_BIN, ...args], {
        cwd: ws!.root,
        env: { ...env(ws!), HOME: dirname(ws!.keelHome) },
        extendEnv: false,
        reject: false,
        stdin: "ignore",
      });
    const call = await keel("--yes", "--json", "call", "read_file", "--input", '{"path":"a.txt"}');
    expect(call.exitCode, String(call.stderr)).toBe(0);
    expect(existsSync(hookRan)).toBe(false);
    const listed = await keel("tools", "--json");
    const diagnostics = JSON.parse(String(listed.stdout)).diagnostics as Diag[];
    const hookDiag = diagnostics.find((d) => d.source === "hooks")?.message;
    expect(hookDiag).toContain(`The PreToolUse hook \`bash ${tools}/check.sh\` of the user-level plugin "guard" (${plugin}) does not run`);
    expect(hookDiag).toContain(`it runs ${tools}/check.sh, outside the plugin's folder, and ${tools}/check.sh belongs to another user (uid ${OTHER})`);
    expect(hookDiag).toContain("chmod go-w");
    const serverDiag = diagnostics.find((d) => d.source === "mcp" && d.message.includes('MCP server "helper"'))?.message;
    expect(serverDiag).toContain(`of the user-level plugin "guard" (${plugin}) is not started: it runs ${tools}/server.mjs`);
    const whoami = await keel("--yes", "--json", "call", "mcp_call_tool", "--input", JSON.stringify({ server: "helper", tool_name: "whoami", arguments: {} }));
    expect(JSON.parse(String(whoami.stdout)).ok).toBe(false);
    const status = await keel("mcp", "list", "--json");
    expect(String(status.stdout)).toContain(`is not started: it runs ${tools}/server.mjs`);
    expect(existsSync(serverRan)).toBe(false);

    // The same scripts, yours in a folder only you may write: both run (the test does exercise them).
    for (const f of ["check.sh", "server.mjs"]) chownSync(join(tools, f), USER, USER);
    chownSync(tools, USER, USER);
    chmodSync(tools, 0o755);
    const ok = await keel("--yes", "--json", "call", "read_file", "--input", '{"path":"a.txt"}');
    expect(ok.exitCode, String(ok.stderr)).toBe(0);
    expect(existsSync(hookRan)).toBe(true);
    const served = await keel("--yes", "--json", "call", "mcp_call_tool", "--input", JSON.stringify({ server: "helper", tool_name: "whoami", arguments: {} }));
    expect(JSON.parse(String(served.stdout)).content, String(served.stderr)).toContain("shipit");
    expect(existsSync(serverRan)).toBe(true);
  });

  it("what runs is judged where keel can tell it: ~ and $HOME expanded, the folders above checked; programs on PATH, root's files and relative paths pass", async () => {
    ws = makeWorkspace({ "a.txt": "hi\n" });
    const home = ws.path("..", "home");
    const bin = join(home, "bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "x.sh"), "exit 0\n");
    chmodSync(home, 0o777); // anyone may rename ~/bin and put their own in its place
    const hooks = [
      "bash ~/bin/x.sh",
      'bash "$HOME/bin/x.sh"',
      "cd ~/bin && bash x.sh",
      "true",
      "/usr/bin/env bash -c true",
      `bash "\${CLAUDE_PLUGIN_ROOT}/hooks/ok.sh"`,
      "bash rel/x.sh",
    ];
    ws.writeHome("plugins/guard/.claude-plugin/plugin.json", JSON.stringify({ name: "guard" }));
    ws.writeHome("plugins/guard/hooks/ok.sh", "exit 0\n");
    ws.writeHome(
      "plugins/guard/hooks/hooks.json",
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: "*", hooks: hooks.map((command) => ({ type: "command", command })) }] } }),
    );
    const out = await runKeel(["hooks", "--json"], { cwd: ws.root, env: { ...env(ws), HOME: home } });
    const runs = Object.fromEntries((out.json().hooks as { command: string; runs: boolean; why?: string }[]).map((h) => [h.command, h.why ?? "runs"]));
    const refused = `it runs ${join(bin, "x.sh")}, outside the plugin's folder, and ${home} can be written by every user (mode 777), a folder above ${join(bin, "x.sh")}`;
    expect(runs["bash ~/bin/x.sh"]).toContain(refused);
    expect(runs['bash "$HOME/bin/x.sh"']).toContain(refused);
    expect(runs["cd ~/bin && bash x.sh"]).toContain(refused);
    for (const fine of hooks.slice(3)) expect(runs[fine], fine).toBe("runs");
    chmodSync(home, 0o755);
    const again = await runKeel(["hooks", "--json"], { cwd: ws.root, env: { ...env(ws), HOME: home } });
    expect((again.json().hooks as { runs: boolean }[]).every((h) => h.runs)).toBe(true);
  });

  it("a server whose command is a file its group may write (a group not its owner's alone) is not started; its relative script resolves in its cwd", async () => {
    ws = makeWorkspace();
    const tools = ws.path("..", "tools");
    mkdirSync(tools);
    const program = join(tools, "server.sh");
    writeFileSync(program, "#!/bin/sh\nexit 1\n");
    chmodSync(program, 0o775);
    chownSync(program, 0, OTHER); // root's, but members of OTHER's group may rewrite it
    writeFileSync(join(tools, "rel.js"), "");
    chmodSync(join(tools, "rel.js"), 0o666);
    ws.writeHome(
      "plugins/guard/.claude-plugin/plugin.json",
      JSON.stringify({
        name: "guard",
        mcpServers: { direct: { command: program }, relative: { command: "node", args: ["rel.js"], cwd: tools }, onpath: { command: "true" } },
      }),
    );
    const out = await runKeel(["mcp", "list", "--json"], { cwd: ws.root, env: env(ws) });
    const text = JSON.stringify(out.json());
    expect(text).toContain(
      `MCP server \\"direct\\" of the user-level plugin \\"guard\\" (${join(ws.keelHome, "plugins", "guard")}) is not started: it runs ${program}, outside the plugin's folder, and ${program} can be written by its group (gid ${OTHER}, mode 775), which is not a group of its owner alone`,
    );
    expect(text).toContain(
      `it runs ${join(tools, "rel.js")}, outside the plugin's folder, and ${join(tools, "rel.js")} can be written by every user (mode 666)`,
    );
    expect(text).not.toContain('MCP server \\"onpath\\" of the user-level plugin');
  });

  it("a hook line whose file keel cannot tell (a variable set on the line, a pattern, $(…), ~user) is held back; a folder it changes to with cd -P, pushd, env -C or a second cd, and the package.json npm runs there, are checked", async () => {
    ws = makeWorkspace({ "a.txt": "hi\n" });
    const tools = ws.path("..", "tools");
    mkdirSync(tools);
    for (const f of ["x.sh", "package.json"]) writeFileSync(join(tools, f), f === "x.sh" ? "#!/bin/sh\nexit 0\n" : '{"scripts":{"x":"true"}}');
    chmodSync(join(tools, "x.sh"), 0o755);
    chmodSync(tools, 0o777); // anyone may put their own x.sh or package.json there
    const untold = [
      `T=${tools}; bash $T/x.sh`,
      `bash ${tools}/x.*`,
      `bash ${dirname(tools)}/{tools,none}/x.sh`,
      `bash $(echo ${tools}/x.sh)`,
      "bash ~nobody/x.sh",
      `bash ${tools}/$OPENAI_API_KEY.sh`, // the model key is not in a hook's environment: never expanded, never shown
    ];
    const found = [
      `cd -P ${tools} && ./x.sh`,
      `cd -- ${tools} && ./x.sh`,
      `pushd ${tools} && ./x.sh`,
      `env -C ${tools} ./x.sh`,
      `cd ${dirname(tools)} && cd tools && ./x.sh`,
      `cd ${tools} && npm run x`,
      `npm --prefix ${tools} run x`,
    ];
    const fine = [`cd -P "\${CLAUDE_PLUGIN_ROOT}" && ./hooks/ok.sh`, `bash "\${CLAUDE_PLUGIN_ROOT}/hooks/ok.sh"`];
    const hooks = [...untold, ...found, ...fine];
    ws.writeHome("plugins/guard/.claude-plugin/plugin.json", JSON.stringify({ name: "guard" }));
    ws.writeHome("plugins/guard/hooks/ok.sh", "exit 0\n");
    ws.writeHome(
      "plugins/guard/hooks/hooks.json",
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: "*", hooks: hooks.map((command) => ({ type: "command", command })) }] } }),
    );
    const why = async () => {
      const out = await runKeel(["hooks", "--json"], { cwd: ws!.root, env: { ...env(ws!), OPENAI_API_KEY: "sk-test-4242" } });
      expect(JSON.stringify(out.json())).not.toContain("sk-test-4242");
      return Object.fromEntries((out.json().hooks as { command: string; why?: string }[]).map((h) => [h.command, h.why ?? "runs"]));
    };
    const runs = await why();
    for (const line of untold) expect(runs[line], line).toContain("whose file keel cannot tell");
    expect(runs[untold[0]!]).toContain("it runs `$T/x.sh`, whose file keel cannot tell");
    for (const line of found) {
      expect(runs[line], line).toMatch(/^it runs .*\/(x\.sh|package\.json), outside the plugin's folder, and /);
      expect(runs[line], line).toContain(`and ${tools} can be written by every user (mode 777), a folder above ${tools}/`);
    }
    for (const line of fine) expect(runs[line], line).toBe("runs");
    chmodSync(tools, 0o755);
    const again = await why();
    for (const line of [...found, ...fine]) expect(again[line], line).toBe("runs");
    for (const line of untold) expect(again[line], line).toContain("whose file keel cannot tell");
  });

  it("a .. after a link in the plugin goes up from where the link leads: the file it names there is judged", async () => {
    ws = makeWorkspace({ "a.txt": "hi\n" });
    const tools = ws.path("..", "tools");
    mkdirSync(join(tools, "sub"), { recursive: true });
    writeFileSync(join(tools, "x.sh"), "exit 0\n");
    chownSync(join(tools, "x.sh"), OTHER, OTHER); // the other user's, in a folder of yours
    ws.writeHome("plugins/guard/.claude-plugin/plugin.json", JSON.stringify({ name: "guard" }));
    ws.writeHome("plugins/guard/x.sh", "exit 0\n");
    symlinkSync(join(tools, "sub"), join(ws.keelHome, "plugins", "guard", "lib")); // yours, in a folder of yours: the plugin loads
    const command = `bash "\${CLAUDE_PLUGIN_ROOT}/lib/../x.sh"`;
    ws.writeHome("plugins/guard/hooks/hooks.json", JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: "command", command }] }] } }));
    const out = await runKeel(["hooks", "--json"], { cwd: ws.root, env: env(ws) });
    const hook = (out.json().hooks as { command: string; runs: boolean; why?: string }[]).find((h) => h.command === command);
    expect(hook?.why).toContain(
      `it runs ${join(tools, "x.sh")}, outside the plugin's folder, and ${join(tools, "x.sh")} belongs to another user (uid ${OTHER})`,
    );
  });

  it("a server that starts a shell (sh -c) is judged by the shell line it gives it (a folder it changes to, a variable in it); one starting in a folder other users may write is not started", async () => {
    ws = makeWorkspace();
    const tools = ws.path("..", "tools");
    mkdirSync(tools);
    writeFileSync(join(tools, "server.mjs"), "");
    chmodSync(tools, 0o777);
    ws.writeHome(
      "plugins/guard/.claude-plugin/plugin.json",
      JSON.stringify({
        name: "guard",
        mcpServers: {
          cd: { command: "sh", args: ["-c", `cd ${tools} && exec node server.mjs`] },
          variable: { command: "env", args: [`TOOLS=${tools}`, "sh", "-c", "exec node $TOOLS/server.mjs"] },
          npx: { command: "npx", args: ["-y", "some-server"], cwd: tools },
        },
      }),
    );
    const out = await runKeel(["mcp", "list", "--json"], { cwd: ws.root, env: env(ws) });
    const text = JSON.stringify(out.json());
    expect(text).toContain(
      `MCP server \\"cd\\" of the user-level plugin \\"guard\\" (${join(ws.keelHome, "plugins", "guard")}) is not started: it runs ${tools}/server.mjs`,
    );
    expect(text).toContain("is not started: it runs `$TOOLS/server.mjs`, whose file keel cannot tell");
    expect(text).toContain(
      `MCP server \\"npx\\" of the user-level plugin \\"guard\\" (${join(ws.keelHome, "plugins", "guard")}) is not started: it starts in ${tools}, outside the plugin's folder`,
    );
  });
});
