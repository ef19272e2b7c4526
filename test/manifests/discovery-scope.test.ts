import { mkdirSync, symlinkSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { discoveryDirs, passesExcludedDir } from "../../manifests/discovery-scope.js";
import { runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

type Diag = { file: string; path?: string; severity: string; message: string };

let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

/** Manifests a dependency, git's folder or a managed worktree could hold: none may be discovered. */
function plantForeignManifests(w: TempWorkspace): void {
  for (const dir of ["node_modules/dep", ".keel/worktrees/x", ".git/hooks", "plugins/own/node_modules/inner"]) {
    const tag = dir.replace(/[^a-z]+/g, "-");
    w.write(`${dir}/.mcp.json`, { mcpServers: { [`foreign${tag}server`]: { command: "x", disabled: true } } });
    w.write(`${dir}/.claw-mcp.json`, { mcpServers: { [`foreign${tag}claw`]: { command: "x", disabled: true } } });
    w.write(`${dir}/.claude-plugin/plugin.json`, { name: `foreign${tag}claude` });
    w.write(`${dir}/plugins/p/plugin.json`, { name: `foreign${tag}plugin` });
    w.write(`${dir}/.claw-workflows.json`, { workflows: [{ name: `foreign${tag}flow`, steps: ["x"] }] });
  }
  w.write("plugins/node_modules/plugin.json", { name: "foreign-plugins-node-modules" });
  // Links from the workspace's own folders into a dependency are not followed either.
  symlinkSync(w.path("node_modules/dep/plugins/p"), w.path("plugins/linked"));
  w.write("linked/readme.txt", "links only");
  symlinkSync(w.path("node_modules/dep/.mcp.json"), w.path("linked/.mcp.json"));
  symlinkSync(w.path("node_modules/dep/.claw-workflows.json"), w.path("linked/.claw-workflows.json"));
  mkdirSync(w.path(".keel/workflows"), { recursive: true });
  symlinkSync(w.path("node_modules/dep/.claw-workflows.json"), w.path(".keel/workflows/linked.json"));
}

async function discovered(w: TempWorkspace, cwd: string) {
  const run = (args: string[]) => runKeel(["--json", "--cwd", cwd, ...args], { cwd: w.root, env: w.env });
  const [plugins, mcp, workflows] = await Promise.all([run(["plugins"]), run(["mcp", "list"]), run(["workflow", "list"])]);
  return {
    plugins: plugins.json().plugins.map((p: { name: string }) => p.name),
    servers: mcp.json().servers.map((s: { name: string }) => s.name),
    workflows: workflows.json().workflows.map((x: { name: string }) => x.name),
    text: plugins.stdout + mcp.stdout + workflows.stdout,
    diagnostics: [...plugins.json().diagnostics, ...mcp.json().diagnostics, ...workflows.json().diagnostics],
  };
}

describe("manifest discovery stays in the workspace's own files", () => {
  it("never reads node_modules/, .git/ or .keel/worktrees/, also when keel starts inside them", async () => {
    ws = makeWorkspace(
      {
        "plugins/own/plugin.json": { name: "own", mcpServers: "node_modules/inner/.mcp.json", workflows: "./node_modules/inner/.claw-workflows.json" },
        ".mcp.json": { mcpServers: { ownserver: { command: "x", disabled: true } } },
        ".claw-workflows.json": { workflows: [{ name: "own-flow", steps: ["hello"] }] },
      },
      { git: true },
    );
    // A real managed worktree (git links it to the repository), so keel treats the outer workspace as its root.
    ws.git("worktree", "add", "-q", "-b", "keel/x", ws.path(".keel/worktrees/x"));
    plantForeignManifests(ws);

    let diagnostics: Diag[] = [];
    for (const cwd of [
      ws.root,
      ws.path("linked"),
      ws.path("node_modules/dep"),
      ws.path("node_modules/dep/plugins/p"),
      ws.path(".keel/worktrees/x/plugins/p"),
      ws.path(".git/hooks"),
      ws.path("plugins/own/node_modules/inner"),
    ]) {
      const found = await discovered(ws, cwd);
      expect(found.plugins, cwd).toEqual(["own"]);
      expect(found.servers, cwd).toEqual(["ownserver"]);
      expect(found.workflows, cwd).toEqual(["own-flow"]);
      expect(found.text, cwd).not.toContain("foreign");
      if (cwd === ws.path("linked")) diagnostics = found.diagnostics;
    }

    const own = ws.path("plugins/own/plugin.json");
    const refs = diagnostics.filter((d: Diag) => d.file === own);
    expect(refs.map((d: Diag) => d.path)).toEqual(["mcpServers", "workflows"]);
    for (const d of refs) expect(d.message).toMatch(/points into node_modules\/, \.git\/ or \.keel\/worktrees\//);
    const links = diagnostics.filter((d: Diag) => /is a link to .*node_modules/.test(d.message));
    expect(links.map((d: Diag) => [d.file, d.severity])).toEqual([
      [ws.path("plugins/linked/plugin.json"), "warning"],
      [ws.path("linked/.mcp.json"), "warning"],
      [ws.path("linked/.claw-workflows.json"), "warning"],
      [ws.path(".keel/workflows/linked.json"), "warning"],
    ]);
  });

  it("discoveryDirs skips only the excluded ancestors", () => {
    const root = "/w";
    expect(discoveryDirs("/w/a/node_modules/b/c", root)).toEqual(["/w/a", "/w"]);
    expect(discoveryDirs("/w/.keel/worktrees/t/src", root)).toEqual(["/w/.keel", "/w"]);
    expect(discoveryDirs("/w/pkg/sub", root)).toEqual(["/w/pkg/sub", "/w/pkg", "/w"]);
    expect(passesExcludedDir("a/.git/b")).toBe(true);
    expect(passesExcludedDir(".keel/workflows")).toBe(false);
    expect(passesExcludedDir("node_modules_not/x")).toBe(false);
  });

  it("an MCP manifest or workflow file linked outside the workspace is skipped with a warning, unread (its text could reach the model)", async () => {
    ws = makeWorkspace({ ".claw-workflows.json": { workflows: [{ name: "own-flow", steps: ["hello"] }] } }, { git: true });
    const { writeFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const outside = join(ws.root, "..", "other");
    mkdirSync(outside);
    writeFileSync(join(outside, "servers.json"), JSON.stringify({ mcpServers: { theirs: { command: "node", args: ["SECRETARG"] } } }));
    writeFileSync(join(outside, "notes.txt"), "SECRETSTART is not JSON\n");
    symlinkSync(join(outside, "servers.json"), ws.path(".mcp.json"));
    mkdirSync(ws.path(".keel/workflows"), { recursive: true });
    symlinkSync(join(outside, "notes.txt"), ws.path(".keel/workflows/notes.json"));
    const found = await discovered(ws, ws.root);
    expect(found.servers).toEqual([]);
    expect(found.workflows).toEqual(["own-flow"]);
    expect(found.text).not.toContain("SECRET");
    const about = (rel: string) => (found.diagnostics as Diag[]).filter((d) => d.file === ws.path(rel)).map((d) => d.message);
    expect(about(".mcp.json")).toContainEqual(expect.stringMatching(/a link to .*other\/servers\.json, outside the workspace/));
    expect(about(".keel/workflows/notes.json")).toContainEqual(expect.stringMatching(/outside the workspace/));
  });

  it("a workspace plugin's manifest or root .mcp.json linked outside its folder is not read (its parse error quoted the file's start)", async () => {
    ws = makeWorkspace({ "plugins/p/.claude-plugin/plugin.json": { name: "p" }, "plugins/q/.claude-plugin/.keep": "" }, { git: true });
    const { writeFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const outside = join(ws.root, "..", "other");
    mkdirSync(outside);
    writeFileSync(join(outside, "token"), "ghp_SECRETTOKEN0123456789\n");
    writeFileSync(join(outside, "servers.json"), JSON.stringify({ mcpServers: { theirs: { type: "http", url: "https://x.invalid/SECRETURL" } } }));
    symlinkSync(join(outside, "servers.json"), ws.path("plugins/p/.mcp.json"));
    symlinkSync(join(outside, "token"), ws.path("plugins/q/.claude-plugin/plugin.json"));
    const found = await discovered(ws, ws.root);
    expect(found.plugins).toEqual(["p"]);
    expect(found.servers).toEqual([]);
    expect(found.text).not.toContain("SECRET");
    expect(found.text).toMatch(/plugins\/p\/\.mcp\.json was skipped: \\".mcp.json\\" leads outside the plugin directory/);
    expect(found.text).toMatch(/The manifest was not read: \\".claude-plugin\/plugin.json\\" leads outside the plugin directory/);
  });
});
