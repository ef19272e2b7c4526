import { mkdirSync, symlinkSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_PLUGIN_FILES } from "../../plugins/plugin-folder-digest.js";
import { runKeel, runKeelProcess } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

/** `lib.mjs`: registers `lib_tool` and leaves `marker` in the workspace root (keel may run in this process; a pinned plugin runs from keel's copy of its folder, so not by its own URL). */
function lib(marker: string): string {
  return `import { writeFileSync } from "node:fs";
export function register(keel) {
  writeFileSync(keel.workspace.root + "/${marker}", "");
  keel.registerTool({ name: "lib_tool", description: "From lib.mjs", inputSchema: { type: "object" }, execute: () => "lib" });
}`;
}

const PLUGIN = {
  "plugins/p/plugin.json": { name: "p", main: "./index.mjs" },
  "plugins/p/index.mjs": `import { register } from "./lib.mjs";\nexport function apply(keel) { register(keel); }`,
  "plugins/p/lib.mjs": lib("lib-ran"),
};

/** `keel --json tools` in the workspace, in a process of its own (a module this one imported would come from its cache): tool names, diagnostics. */
async function tools(...flags: string[]): Promise<{ names: string[]; messages: string }> {
  const run = await runKeelProcess(["--json", ...flags, "tools"], { cwd: ws!.root, env: ws!.env });
  const out = run.json() as { tools: { name: string }[]; diagnostics: { message: string }[] };
  return { names: out.tools.map((t) => t.name), messages: out.diagnostics.map((d) => d.message).join("\n") };
}

async function trust(): Promise<void> {
  const run = await runKeel(["--json", "trust"], { cwd: ws!.root, env: ws!.env });
  expect(run.exitCode, run.stderr).toBe(0);
}

describe("keel trust pins a workspace code plugin's folder, not only its entry file", () => {
  it("a module its entry imports (lib.mjs) changed since keel trust holds the plugin back until keel trust again", async () => {
    ws = makeWorkspace(PLUGIN, { git: true });
    await trust();
    expect((await tools()).names).toContain("lib_tool");
    expect(ws.exists("lib-ran")).toBe(true);

    // As a sandboxed `bash` command could (it may write inside the workspace): the entry file stays as approved.
    ws.write("plugins/p/lib.mjs", lib("changed-lib-ran"));
    const held = await tools();
    expect(held.names).not.toContain("lib_tool");
    expect(ws.exists("changed-lib-ran")).toBe(false); // never imported
    expect(held.messages).toMatch(/code plugin p \(plugins\/p\/index\.mjs\) was added or changed since this workspace was trusted/);

    await trust();
    expect((await tools()).names).toContain("lib_tool");
    expect(ws.exists("changed-lib-ran")).toBe(true);
  });

  it("a file added to the folder counts as a change; node_modules/ and .git/ inside it do not (their contents are not pinned)", async () => {
    ws = makeWorkspace(
      {
        ...PLUGIN,
        // Not imported: a pinned plugin may not import from its node_modules/ (code-plugin-imports.test.ts).
        "plugins/p/node_modules/dep/package.json": { name: "dep", type: "module", main: "index.mjs" },
        "plugins/p/node_modules/dep/index.mjs": "export {};",
        "plugins/p/.git/HEAD": "ref: refs/heads/main\n",
      },
      { git: true },
    );
    // A monorepo's shared node_modules linked in is left out too (not refused as a link out of the folder).
    ws.write("shared/node_modules/x.js", "");
    ws.write("plugins/p/sub/a.mjs", "export {};");
    symlinkSync(ws.path("shared/node_modules"), ws.path("plugins/p/sub/node_modules"));
    await trust();
    expect((await tools()).names).toContain("lib_tool");
    ws.write("plugins/p/node_modules/dep/index.mjs", "export const changed = 1;");
    ws.write("plugins/p/node_modules/other/x.js", "");
    ws.write("plugins/p/.git/HEAD", "ref: refs/heads/other\n");
    expect((await tools()).names).toContain("lib_tool");

    ws.write("plugins/p/extra.mjs", "export {};");
    const held = await tools();
    expect(held.names).not.toContain("lib_tool");
    expect(held.messages).toMatch(/code plugin p .* was added or changed since this workspace was trusted/);
  });

  it(`a folder of more than ${MAX_PLUGIN_FILES} files, or with a link out of it, fails closed with an error naming the plugin and the file (--trust still runs it)`, async () => {
    const many = Object.fromEntries(Array.from({ length: MAX_PLUGIN_FILES + 1 }, (_, i) => [`plugins/p/data/${i}.txt`, ""]));
    ws = makeWorkspace({ ...PLUGIN, ...many }, { git: true });
    await trust();
    const over = await tools();
    expect(over.names).not.toContain("lib_tool");
    expect(ws.exists("lib-ran")).toBe(false);
    expect(over.messages).toMatch(
      new RegExp(
        `Plugin p: its folder cannot be pinned for \`keel trust\` \\(plugins/p/\\S+: the plugin folder holds more than ${MAX_PLUGIN_FILES} files\\); the code module was not loaded`,
      ),
    );
    expect(over.messages).toContain("or install it at user level");
    // --trust approves everything for one run: nothing needs pinning.
    expect((await tools("--trust")).names).toContain("lib_tool");

    ws.cleanup();
    ws = makeWorkspace({ ...PLUGIN, "outside.mjs": "export {};" }, { git: true });
    symlinkSync(ws.path("outside.mjs"), ws.path("plugins/p/helper.mjs"));
    await trust();
    const linked = await tools();
    expect(linked.names).not.toContain("lib_tool");
    expect(linked.messages).toMatch(
      /Plugin p: its folder cannot be pinned .*plugins\/p\/helper\.mjs: it is a symbolic link leading to .*outside\.mjs, outside the plugin folder/,
    );

    // Folders count too: a tree of empty folders would otherwise be walked at every start.
    ws.cleanup();
    ws = makeWorkspace(PLUGIN, { git: true });
    for (let i = 0; i <= MAX_PLUGIN_FILES; i++) mkdirSync(ws.path(`plugins/p/empty/${i}`), { recursive: true });
    await trust();
    const folders = await tools();
    expect(folders.names).not.toContain("lib_tool");
    expect(folders.messages).toContain(`the plugin folder holds more than ${MAX_PLUGIN_FILES} folders`);
  });
});

describe("a code plugin whose folder is the workspace itself", () => {
  it("is pinned without keel's own .keel/ state (which every run writes), so it still loads on the next runs", async () => {
    ws = makeWorkspace(
      {
        ".claude-plugin/plugin.json": { name: "root", main: "./index.mjs" },
        "index.mjs": `export function apply(keel) { keel.registerTool({ name: "root_tool", description: "r", inputSchema: { type: "object" }, execute: () => "r" }); }`,
      },
      { git: true },
    );
    await trust();
    expect((await tools()).names).toContain("root_tool");
    ws.write(".keel/state/anything.json", "{}");
    expect((await tools()).names).toContain("root_tool");
    ws.write("notes.txt", "an edit anywhere in the workspace");
    expect((await tools()).names).not.toContain("root_tool");
  });
  it("with the sandbox on, a sandboxed command cannot rewrite a loaded plugin's folder (keel imports it unsandboxed); the rest of the workspace stays writable", async () => {
    // Runs the real bubblewrap (`bwrap`), which .ci/run installs (Debian package bubblewrap).
    ws = makeWorkspace(PLUGIN, { git: true });
    ws.writeUserConfig({ sandbox: "workspace-write" });
    await trust();
    const command = "echo 'globalThis.planted = 1;' >> plugins/p/lib.mjs; echo written > other.txt";
    const run = await runKeelProcess(["--json", "--yes", "call", "bash", "--input", JSON.stringify({ command })], { cwd: ws.root, env: ws.env });
    expect(run.json().metadata.sandbox, run.stdout + run.stderr).toBe("workspace-write");
    expect(JSON.stringify(run.json().data)).toMatch(/Read-only file system/);
    expect(ws.read("plugins/p/lib.mjs")).toBe(lib("lib-ran"));
    expect(ws.read("other.txt")).toBe("written\n");
  });

  it("with the sandbox on, a sandboxed command cannot rename a folder above a loaded plugin's folder to free its path and write a new one there", async () => {
    ws = makeWorkspace(PLUGIN, { git: true, under: "/var/tmp" });
    ws.writeUserConfig({ sandbox: "workspace-write" });
    await trust();
    const command = "mv plugins plugins2 && mkdir -p plugins/p && cp plugins2/p/* plugins/p/ && echo 'globalThis.planted = 1;' >> plugins/p/lib.mjs; echo done";
    const run = await runKeelProcess(["--json", "--yes", "call", "bash", "--input", JSON.stringify({ command })], { cwd: ws.root, env: ws.env });
    expect(run.json().metadata.sandbox, run.stdout + run.stderr).toBe("workspace-write");
    expect(ws.read("plugins/p/lib.mjs")).toBe(lib("lib-ran"));
    expect(ws.exists("plugins2")).toBe(false);
    expect(JSON.stringify(run.json().data)).toMatch(/busy/i);
  });
});
