import { execa } from "execa";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { KEEL_BIN, runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

const TRACE = fileURLToPath(new URL("./fixtures/trace-module-loads.mjs", import.meta.url));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * The executable runs the bundle (dist/cli/, bin/bundle-cli.mjs): each loaded bundle file stands
 * for the compiled modules inside it (dist/cli/meta.json), so the checks below name modules as
 * `tsc` emits them, whichever file they were bundled into.
 */
function unbundle(urls: string[]): string[] {
  const meta = JSON.parse(readFileSync(`${ROOT}dist/cli/meta.json`, "utf8")) as { outputs: Record<string, string[]> };
  return urls.flatMap((url) => {
    const rel = url.startsWith(`file://${ROOT}`) ? url.slice(`file://${ROOT}`.length) : undefined;
    const inputs = rel === undefined ? undefined : meta.outputs[rel];
    return inputs ? inputs.map((input) => `file://${ROOT}${input}`) : [url];
  });
}

/** Runs the real executable with the module tracer; returns its JSON output and the loaded module URLs. */
async function traced(ws: TempWorkspace, args: string[]): Promise<{ json: any; modules: string[] }> {
  const r = await execa(process.execPath, ["--import", TRACE, KEEL_BIN, ...args], { cwd: ws.root, env: ws.env, extendEnv: false, reject: false });
  expect(r.exitCode, r.stderr).toBe(0);
  const modules = r.stderr
    .split("\n")
    .filter((l) => l.startsWith("[module-loaded] "))
    .map((l) => l.slice("[module-loaded] ".length));
  expect(
    modules.some((m) => m.includes("/dist/cli/keel-cli.js")),
    "the executable runs the bundle",
  ).toBe(true);
  return { json: JSON.parse(r.stdout), modules: unbundle(modules) };
}

const loaded = (modules: string[], part: string) => modules.some((m) => m.includes(part));

/** What `keel tools` must not load when the workspace has nothing that needs it (each is loaded on first use). */
const LAZY = [
  "/node_modules/zod/", // schemas: only when a config file or manifest exists
  "/node_modules/cosmiconfig/", // only when a project config file exists
  "/dist/core/config/merge-layers.js", // config merging and Claude rule translation: only when a config layer exists
  "/dist/core/config/claude-rules.js",
  "/node_modules/ajv/", // tool input validation: only when a tool is called
  "/node_modules/@modelcontextprotocol/sdk/", // only when a server starts
  "/node_modules/execa/",
  "/node_modules/simple-git/",
  "/node_modules/openai/",
  "/node_modules/proper-lockfile/", // only when a state file is locked
  "/node_modules/fdir/", // only when glob or grep searches
  "node:crypto", // hashes and random names: only when a file is hashed, a trust pin checked or a call id drawn (core/lazy-crypto.ts)
  "/dist/core/agent/agent-sessions.js", // the session machinery: only when a session runs
  "/dist/core/session/session-store.js",
  "/dist/core/model/create-model.js",
  "/dist/manifests/plugin/load-plugin-files.js", // manifest parsers: only when a manifest exists
  "/dist/manifests/mcp/parse-mcp-manifest.js",
  "/dist/manifests/workflow/parse-workflow.js",
  "/dist/manifests/claude/load-agents.js", // agent files: only when an agents/ folder has some
  "/dist/plugins/code-plugins.js", // code plugins: only when a plugin names a `main` module
  "/dist/plugins/plugin-folder-digest.js", // the walk pinning a workspace code plugin's folder: only with code plugins
  "/dist/core/tools/find-files.js", // built-in tools' search machinery: only when glob or grep runs
  "/dist/core/tools/grep-pattern.js",
  "/dist/runtimes/config/config-view.js", // runtimes' implementations: only when their tools run
  "/dist/runtimes/config/config-writer.js",
  "/dist/runtimes/worktree/merge-worktree.js",
  "/dist/runtimes/worktree/discard-worktree.js",
  "/dist/runtimes/workflow/describe-workflow.js",
  "/dist/runtimes/workflow/workflow-runner.js",
];

describe("start-up: keel tools loads only what the workspace needs", () => {
  it("in a workspace without config, manifests or servers, lists every tool without loading schemas, parsers or the session machinery", async () => {
    const ws = makeWorkspace({});
    try {
      const { json, modules } = await traced(ws, ["--json", "tools"]);
      expect(loaded(modules, "/dist/core/agent/agent-runtime.js"), "the tracer sees keel's modules").toBe(true);
      for (const part of LAZY) expect(loaded(modules, part), `${part} was loaded`).toBe(false);
      const byName = new Map<string, any>(json.tools.map((t: any) => [t.name, t]));
      for (const name of [
        "read_file",
        "bash",
        "task_create",
        "update_plan",
        "send_message",
        "config_set",
        "worktree_enter",
        "workflow_run",
        "delegate_agent",
        "tool_search",
      ]) {
        const tool = byName.get(name);
        expect(tool, name).toBeDefined();
        expect(tool.description.length).toBeGreaterThan(10);
        expect(tool.inputSchema.type).toBe("object");
        expect(tool.source.kind).toMatch(/^(builtin|runtime)$/);
      }
    } finally {
      ws.cleanup();
    }
  });

  it("with your local config recorded (see local-rules.ts), checks its deny rules without hashing, writing or running git", async () => {
    const ws = makeWorkspace({ ".keel/config.local.json": { permissions: { deny: ["bash(rm *)"] } } }, { git: true });
    try {
      // The first command records the rules (a write); the next ones only read the record.
      expect((await runKeel(["--json", "tools"], { cwd: ws.root, env: ws.env })).exitCode).toBe(0);
      const { modules } = await traced(ws, ["--json", "tools"]);
      expect(loaded(modules, "/dist/core/config/local-rules.js"), "the check ran").toBe(true);
      for (const part of ["node:crypto", "/node_modules/execa/", "/node_modules/proper-lockfile/"])
        expect(loaded(modules, part), `${part} was loaded`).toBe(false);
    } finally {
      ws.cleanup();
    }
  });

  it("loads the schemas and parsers as soon as there is something to validate, and still applies it", async () => {
    const ws = makeWorkspace({
      "keel.config.json": { permissions: { deny: ["bash(rm *)"] } },
      "plugins/p/plugin.json": { name: "p", virtual_tools: [{ name: "p_hello", description: "Says hello", response_template: "hi {who}" }] },
      ".claw-workflows.json": { workflows: [{ name: "wf", steps: [{ tool: "read_file", input: { path: "x" } }] }] },
    });
    try {
      const { json, modules } = await traced(ws, ["--json", "tools"]);
      for (const part of [
        "/node_modules/zod/",
        "/node_modules/cosmiconfig/",
        "/dist/core/config/merge-layers.js",
        "/dist/manifests/plugin/load-plugin-files.js",
        "/dist/manifests/workflow/parse-workflow.js",
      ])
        expect(loaded(modules, part), `${part} was not loaded`).toBe(true);
      expect(loaded(modules, "/dist/core/agent/agent-sessions.js")).toBe(false);
      expect(json.tools.map((t: any) => t.name)).toContain("p_hello");
      const denied = await runKeel(["--json", "--yes", "call", "bash", "--input", '{"command":"rm -rf nothing-here"}'], { cwd: ws.root, env: ws.env });
      expect(denied.json().code).toBe("permission_denied");
      ws.write("keel.config.json", { output: { maxChars: -1 } });
      const invalid = await runKeel(["--json", "tools"], { cwd: ws.root, env: ws.env });
      expect(invalid.exitCode).toBe(2);
      expect(invalid.json().error.message).toMatch(/output\.maxChars/);
    } finally {
      ws.cleanup();
    }
  });
});
