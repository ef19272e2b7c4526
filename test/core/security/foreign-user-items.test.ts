import { chmodSync, chownSync, lchownSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

// Files of another user are made with chown, which only root may do; those tests are skipped elsewhere.
const asRoot = process.geteuid?.() === 0;
/** The other user: any uid that is not ours, not root's and not SUDO_UID. */
const OTHER = 54321;

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

/** Writes `rel` (a file) under `$KEEL_HOME`, making its folders. */
const put = (rel: string, content: string): string => ws!.writeHome(rel, content);

const env = () => ({ ...ws!.env, SUDO_UID: undefined });
const PLUGIN = (name: string) => JSON.stringify({ name, blocked_tools: ["bash"] });

describe("files inside $KEEL_HOME's user-level folders speak for you only when they are yours", () => {
  it("a world-writable user-level plugin.json is refused (that plugin only), with a diagnostic naming it; yours loads", async () => {
    ws = makeWorkspace();
    put("plugins/mine/plugin.json", PLUGIN("mine"));
    const theirs = put("plugins/open/plugin.json", PLUGIN("open"));
    chmodSync(theirs, 0o666);

    const out = await runKeel(["plugins", "--json"], { cwd: ws.root, env: env() });
    const json = out.json();
    const names = JSON.stringify(json);
    expect(names).toContain('"mine"');
    const diag = json.diagnostics.find((d: { file?: string }) => d.file === theirs);
    expect(diag?.severity).toBe("error");
    expect(diag?.message).toContain(`${theirs} can be written by every user (mode 666)`);
    expect(diag?.message).toContain("chmod go-w");
  });

  it("a user-level command, skill and agent file every user may write are each skipped with a diagnostic; the others load", async () => {
    ws = makeWorkspace();
    put("commands/ok.md", "---\ndescription: fine\n---\nSay ok.\n");
    const cmd = put("commands/open.md", "---\ndescription: theirs\n---\nRun their thing.\n");
    chmodSync(cmd, 0o666);
    const skillDir = join(ws.keelHome, "skills", "open");
    const skill = put("skills/open/SKILL.md", "---\ndescription: theirs\n---\nDo their thing.\n");
    chmodSync(skillDir, 0o777);
    const agent = put("agents/open.md", "---\nname: open\ndescription: theirs\n---\nBe theirs.\n");
    chmodSync(agent, 0o646);

    const tools = await runKeel(["tools", "--json"], { cwd: ws.root, env: env() });
    expect(tools.exitCode, tools.stderr).toBe(0);
    const diagnostics: { file?: string; message: string }[] = tools.json().diagnostics;
    const about = (file: string) => diagnostics.find((d) => d.file === file)?.message;
    expect(about(cmd)).toContain(`The user-level command file was skipped: ${cmd} can be written by every user (mode 666)`);
    expect(about(skill)).toContain(`The user-level skill was skipped: ${skillDir} can be written by every user (mode 777)`);
    expect(about(join(ws.keelHome, "agents", "open.md"))).toContain("The user-level agent file was skipped");
    // the skill tool is not registered: the only skill was refused
    expect(tools.json().tools.map((t: { name: string }) => t.name)).not.toContain("skill");
    const workflows = await runKeel(["workflow", "list", "--json"], { cwd: ws.root, env: env() });
    expect(workflows.stdout).toContain('"ok"');
    expect(workflows.stdout).not.toContain('"open"');
  });

  it("the hooks file of a user-level plugin every user may write does not run its commands (hooks are code run as you)", async () => {
    ws = makeWorkspace();
    put("plugins/hooked/.claude-plugin/plugin.json", JSON.stringify({ name: "hooked" }));
    const hooks = put(
      "plugins/hooked/hooks/hooks.json",
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: "echo theirs" }] }] } }),
    );
    chmodSync(hooks, 0o666);

    const listed = await runKeel(["hooks", "--json"], { cwd: ws.root, env: env() });
    expect(listed.json().hooks).toEqual([]);
    const tools = await runKeel(["tools", "--json"], { cwd: ws.root, env: env() });
    expect(JSON.stringify(tools.json().diagnostics)).toContain(`${hooks} can be written by every user (mode 666)`);
  });

  it("a user-level code plugin whose module file every user may write is not imported (its code would run as you)", async () => {
    ws = makeWorkspace();
    put("plugins/coded/plugin.json", JSON.stringify({ name: "coded", main: "./index.mjs" }));
    const main = put(
      "plugins/coded/index.mjs",
      `export function apply(keel) { keel.registerTool({ name: "theirs_tool", description: "theirs", inputSchema: { type: "object" }, execute: () => "x" }); }\n`,
    );
    chmodSync(main, 0o666);

    const tools = await runKeel(["tools", "--json"], { cwd: ws.root, env: env() });
    expect(tools.json().tools.map((t: { name: string }) => t.name)).not.toContain("theirs_tool");
    // the whole plugin is refused where it is found (its folder tree is checked), before its module could be imported
    const diag = tools.json().diagnostics.find((d: { message: string }) => d.message.includes(`${main} can be written by every user (mode 666)`));
    expect(diag?.message).toContain(`The user-level plugin ${join(ws.keelHome, "plugins", "coded")} was skipped`);
    // the same module, yours and writable by you only, loads
    chmodSync(main, 0o644);
    const again = await runKeel(["tools", "--json"], { cwd: ws.root, env: env() });
    expect(again.json().tools.map((t: { name: string }) => t.name)).toContain("theirs_tool");
  });

  it.skipIf(!asRoot)("a user-level plugin folder another user owns is refused, and so is a file another user owns that your plugin bundles", async () => {
    ws = makeWorkspace();
    const folder = join(ws.keelHome, "plugins", "shared");
    put("plugins/shared/plugin.json", PLUGIN("shared"));
    chownSync(folder, OTHER, OTHER);
    put("plugins/bundles/plugin.json", JSON.stringify({ name: "bundles", mcpServers: "./servers.json" }));
    const servers = put("plugins/bundles/servers.json", JSON.stringify({ mcpServers: { theirs: { command: "sh", args: ["-c", "true"] } } }));
    chownSync(servers, OTHER, OTHER);

    const out = await runKeel(["plugins", "--json"], { cwd: ws.root, env: env() });
    const diagnostics: { file?: string; message: string }[] = out.json().diagnostics;
    const shared = diagnostics.find((d) => d.file === join(folder, "plugin.json"));
    expect(shared?.message).toContain(`The user-level plugin ${folder} was skipped: ${folder} belongs to another user (uid ${OTHER})`);
    expect(JSON.stringify(diagnostics)).toContain(`${servers} belongs to another user (uid ${OTHER})`);
    const mcp = await runKeel(["mcp", "list", "--json"], { cwd: ws.root, env: env() });
    expect(mcp.stdout).not.toContain("theirs");
  });

  it.skipIf(!asRoot)("a link another user owns is refused though what it leads to is yours (whoever made the link chose where it leads)", async () => {
    ws = makeWorkspace();
    put("plugins/linked/real.json", PLUGIN("linked"));
    const link = join(ws.keelHome, "plugins", "linked", "plugin.json");
    symlinkSync("real.json", link);
    lchownSync(link, OTHER, OTHER);
    const out = await runKeel(["plugins", "--json"], { cwd: ws.root, env: env() });
    expect(JSON.stringify(out.json().diagnostics)).toContain(`${link} belongs to another user (uid ${OTHER})`);
    expect(out.json().plugins.map((p: { name: string }) => p.name)).not.toContain("linked");
  });
});
