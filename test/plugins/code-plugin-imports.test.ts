import { mkdirSync, symlinkSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel, runKeelProcess } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

// What a pinned workspace code plugin imports is checked as Node loads it (plugins/plugin-import-hooks-source.ts).
// Node's module hooks are exercised only by the real loader: every load here runs the keel executable.

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

/** A module that leaves `marker` in the workspace root when it runs (found by its own URL), exporting `value`. */
function marked(marker: string, depth: number, value: string): string {
  return `import { writeFileSync } from "node:fs";
writeFileSync(new URL("${"../".repeat(depth)}${marker}", import.meta.url), "");
export const value = ${JSON.stringify(value)};`;
}

/** A plugin `p` whose entry runs `imports` and registers `p_tool`, answering `answer` (an expression). */
function plugin(imports: string, answer = '"ok"'): Record<string, string | object> {
  return {
    "plugins/p/plugin.json": { name: "p", main: "./index.mjs" },
    "plugins/p/index.mjs": `${imports}
export function apply(keel) {
  keel.registerTool({ name: "p_tool", description: "p", inputSchema: { type: "object" }, risk: ["read"], readOnly: true, execute: () => ${answer} });
}`,
  };
}

async function trust(): Promise<void> {
  const run = await runKeel(["--json", "trust"], { cwd: ws!.root, env: ws!.env });
  expect(run.exitCode, run.stderr).toBe(0);
}

/** `keel --json tools` in a process of its own: tool names, diagnostics. */
async function tools(...flags: string[]): Promise<{ names: string[]; messages: string }> {
  const run = await runKeelProcess(["--json", ...flags, "tools"], { cwd: ws!.root, env: ws!.env });
  expect(run.exitCode, run.stderr).toBe(0);
  const out = run.json() as { tools: { name: string }[]; diagnostics: { message: string }[] };
  return { names: out.tools.map((t) => t.name), messages: out.diagnostics.map((d) => d.message).join("\n") };
}

async function call(tool: string): Promise<{ ok: boolean; code: string; content: string }> {
  const run = await runKeelProcess(["--json", "call", tool, "--input", "{}"], { cwd: ws!.root, env: ws!.env });
  return JSON.parse(run.stdout) as { ok: boolean; code: string; content: string };
}

const FIX = "Vendor it into the plugin folder (bundle it), or install the plugin at user level ($KEEL_HOME/plugins/)";

describe("a workspace code plugin pinned by keel trust imports only what keel can check", () => {
  it("its own pinned files load: ES modules, a vendored package, JSON, and a CommonJS chain with require of JSON and of a folder's package.json main", async () => {
    ws = makeWorkspace(
      {
        ...plugin(
          `import { value } from "./lib.mjs";\nimport dep from "./vendor/dep/index.mjs";\nimport chain from "./cjs/a.cjs";\nimport data from "./data.json" with { type: "json" };`,
          "[value, dep, chain, data.n].join(',')",
        ),
        "plugins/p/lib.mjs": marked("lib-ran", 2, "lib"),
        "plugins/p/vendor/dep/index.mjs": `export default "dep";`,
        "plugins/p/cjs/a.cjs": `module.exports = require("./b.cjs") + require("./c.json").c + require("./folder");`,
        "plugins/p/cjs/b.cjs": `module.exports = "b";`,
        "plugins/p/cjs/c.json": { c: "c" },
        "plugins/p/cjs/folder/package.json": { main: "main.cjs" },
        "plugins/p/cjs/folder/main.cjs": `module.exports = "f";`,
        "plugins/p/data.json": { n: 1 },
      },
      { git: true },
    );
    await trust();
    const listed = await tools();
    expect(listed.messages).toBe("");
    expect(listed.names).toContain("p_tool");
    expect(await call("p_tool")).toMatchObject({ ok: true, content: "lib,dep,bcf,1" });
    expect(ws.exists("lib-ran")).toBe(true);
  });

  it("a workspace file outside the plugin folder (../shared.mjs) is refused: the plugin is not loaded, and the diagnostic names the file and the fix", async () => {
    ws = makeWorkspace({ ...plugin(`import { value } from "../shared.mjs";`), "plugins/shared.mjs": marked("shared-ran", 1, "s") }, { git: true });
    await trust();
    const listed = await tools();
    expect(listed.names).not.toContain("p_tool");
    expect(ws.exists("shared-ran")).toBe(false);
    expect(listed.messages).toContain(
      "Plugin p: the module could not be imported (keel refused to import plugins/shared.mjs for plugin p: it is in the workspace outside the plugin folder, which keel trust does not pin and a sandboxed command may write.",
    );
    expect(listed.messages).toContain(FIX);
    // --trust runs the workspace as it is: nothing pinned, nothing checked.
    expect((await tools("--trust")).names).toContain("p_tool");
    expect(ws.exists("shared-ran")).toBe(true);
  });

  it("a package from the workspace root's node_modules/, or from the plugin's own node_modules/, is refused", async () => {
    ws = makeWorkspace(
      {
        ...plugin(`import "wsdep";`),
        "node_modules/wsdep/package.json": { name: "wsdep", type: "module", main: "index.mjs" },
        "node_modules/wsdep/index.mjs": marked("wsdep-ran", 2, "w"),
        "plugins/p/node_modules/pdep/package.json": { name: "pdep", type: "module", main: "index.mjs" },
        "plugins/p/node_modules/pdep/index.mjs": marked("pdep-ran", 4, "p"),
      },
      { git: true },
    );
    await trust();
    const root = await tools();
    expect(root.names).not.toContain("p_tool");
    expect(root.messages).toContain("keel refused to import node_modules/wsdep for plugin p: it is in the workspace outside the plugin folder");
    expect(root.messages).toContain(FIX);

    ws.write("plugins/p/index.mjs", ws.read("plugins/p/index.mjs").replace(`import "wsdep";`, `import "pdep";`));
    await trust();
    const own = await tools();
    expect(own.names).not.toContain("p_tool");
    expect(own.messages).toContain(
      "keel refused to import plugins/p/node_modules/pdep for plugin p: it is in the plugin folder's node_modules/, which keel trust does not pin",
    );
    expect(ws.exists("wsdep-ran") || ws.exists("pdep-ran")).toBe(false);
  });

  it("a CommonJS file requiring one outside the folder is refused", async () => {
    ws = makeWorkspace(
      {
        "plugins/p/plugin.json": { name: "p", main: "./index.cjs" },
        "plugins/p/index.cjs": `require("./lib/a.cjs");\nexports.apply = (keel) => keel.registerTool({ name: "p_tool", description: "p", inputSchema: { type: "object" }, execute: () => "ok" });`,
        "plugins/p/lib/a.cjs": `module.exports = require("../../outside.cjs");`,
        "plugins/outside.cjs": `require("node:fs").writeFileSync(require("node:path").join(__dirname, "..", "outside-ran"), "");`,
      },
      { git: true },
    );
    await trust();
    const listed = await tools();
    expect(listed.names).not.toContain("p_tool");
    expect(ws.exists("outside-ran")).toBe(false);
    expect(listed.messages).toContain("keel refused to import plugins/outside.cjs for plugin p: it is in the workspace outside the plugin folder");
  });

  it("node:module is refused (its createRequire would load CommonJS past the checks)", async () => {
    ws = makeWorkspace({ ...plugin(`import { createRequire } from "node:module";`) }, { git: true });
    await trust();
    const listed = await tools();
    expect(listed.names).not.toContain("p_tool");
    expect(listed.messages).toContain("keel refused to import node:module for plugin p: node:module is refused in a workspace code plugin");
  });

  it("a file of the folder rewritten after keel started (between the start-up pin check and its import) is refused", async () => {
    // The tool imports ./late.mjs when called, after the go file appears: the test rewrites late.mjs in between.
    const waiting = `async () => {
      const { existsSync, writeFileSync } = await import("node:fs");
      writeFileSync(new URL("../../ready", import.meta.url), "");
      for (let i = 0; i < 1200 && !existsSync(new URL("../../go", import.meta.url)); i++) await new Promise((r) => setTimeout(r, 50));
      return (await import("./late.mjs")).value;
    }`;
    ws = makeWorkspace({ ...plugin("", `(${waiting})()`), "plugins/p/late.mjs": marked("late-ran", 2, "as pinned") }, { git: true });
    await trust();

    // As pinned: the late import loads.
    ws.write("go", "");
    expect(await call("p_tool")).toMatchObject({ ok: true, content: "as pinned" });
    expect(ws.exists("late-ran")).toBe(true);

    ws.cleanup();
    ws = makeWorkspace({ ...plugin("", `(${waiting})()`), "plugins/p/late.mjs": marked("late-ran", 2, "as pinned") }, { git: true });
    await trust();
    const running = call("p_tool");
    for (let i = 0; i < 1200 && !ws.exists("ready"); i++) await new Promise((r) => setTimeout(r, 50));
    expect(ws.exists("ready")).toBe(true);
    ws.write("plugins/p/late.mjs", marked("changed-late-ran", 2, "changed"));
    ws.write("go", "");
    const obs = await running;
    expect(obs.ok).toBe(false);
    expect(obs.content).toContain(
      "keel refused to import plugins/p/late.mjs for plugin p: it changed since keel checked the plugin folder at start (it is not what keel trust pinned)",
    );
    expect(ws.exists("changed-late-ran")).toBe(false);
  });
});

describe("what the import checks leave alone", () => {
  it('"keel" from the workspace\'s node_modules/ when it is the running keel: its dist/ is code keel runs anyway', async () => {
    ws = makeWorkspace(plugin(`import { ToolError } from "keel";`, `(() => { throw new ToolError("run setup first", "precondition_failed"); })()`), {
      git: true,
    });
    // As when keel is a dependency of the project it works on (the keel executable below is this checkout's).
    mkdirSync(ws.path("node_modules"));
    symlinkSync(fileURLToPath(new URL("../..", import.meta.url)), ws.path("node_modules/keel"));
    await trust();
    expect((await tools()).messages).toBe("");
    expect(await call("p_tool")).toMatchObject({ ok: false, code: "precondition_failed", content: "run setup first" });
  });

  it("a user-level plugin still imports a file outside its folder, also while a pinned workspace plugin is checked in the same process", async () => {
    ws = makeWorkspace({ ...plugin(`import "./lib.mjs";`), "plugins/p/lib.mjs": "export {};" }, { git: true });
    ws.write("../keel-home/plugins/u/plugin.json", JSON.stringify({ name: "u", main: "./index.mjs" }));
    ws.write(
      "../keel-home/plugins/u/index.mjs",
      // Imported when the tool runs: after the workspace plugin's import registered the hooks.
      `export function apply(keel) {
  keel.registerTool({ name: "u_tool", description: "u", inputSchema: { type: "object" }, risk: ["read"], readOnly: true, execute: async () => (await import("../../shared-user.mjs")).value });
}`,
    );
    ws.write("../keel-home/shared-user.mjs", `export const value = "user";`);
    await trust();
    const listed = await tools();
    expect(listed.messages).toBe("");
    expect(listed.names).toEqual(expect.arrayContaining(["p_tool", "u_tool"]));
    expect(await call("u_tool")).toMatchObject({ ok: true, content: "user" });
  });
});
