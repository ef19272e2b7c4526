import { lstatSync, readdirSync, readlinkSync, statSync, symlinkSync, utimesSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel, runKeelProcess } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

// A pinned workspace code plugin is imported from keel's copy of exactly the pinned bytes of its
// folder (plugins/plugin-snapshot.ts), under $KEEL_HOME/state/code-plugins/. Loads run both in a keel
// process of their own (Node's real loader) and in-process (runKeel, under vitest's).

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

/** A workspace (a git repository) holding `files`; `files` gets the workspace so markers can be absolute paths. */
function workspace(files: (ws: TempWorkspace) => Record<string, string | object>): TempWorkspace {
  ws = makeWorkspace({}, { git: true });
  for (const [rel, content] of Object.entries(files(ws))) ws.write(rel, content);
  return ws;
}

/** An ES module that leaves the workspace file `marker` when it runs, exporting `value`. */
function marked(w: TempWorkspace, marker: string, value: string): string {
  return `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(w.path(marker))}, "");\nexport const value = ${JSON.stringify(value)};`;
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

/** `keel --json tools`, in a process of its own or in-process: tool names, diagnostics. */
async function tools(how: "process" | "in-process" = "process", ...flags: string[]): Promise<{ names: string[]; messages: string }> {
  const run = await (how === "process" ? runKeelProcess : runKeel)(["--json", ...flags, "tools"], { cwd: ws!.root, env: ws!.env });
  expect(run.exitCode, run.stderr).toBe(0);
  const out = run.json() as { tools: { name: string }[]; diagnostics: { message: string }[] };
  return { names: out.tools.map((t) => t.name), messages: out.diagnostics.map((d) => d.message).join("\n") };
}

async function call(tool: string, how: "process" | "in-process" = "process", ...flags: string[]): Promise<{ ok: boolean; code: string; content: string }> {
  const run = await (how === "process" ? runKeelProcess : runKeel)(["--json", ...flags, "call", tool, "--input", "{}"], { cwd: ws!.root, env: ws!.env });
  return JSON.parse(run.stdout) as { ok: boolean; code: string; content: string };
}

/** The pinned copies under $KEEL_HOME/state/code-plugins/ (absolute). */
function copies(): string[] {
  const dir = join(ws!.keelHome, "state", "code-plugins");
  try {
    return readdirSync(dir).map((name) => join(dir, name));
  } catch {
    return [];
  }
}

const EXPLAINED =
  "it may import only files inside its folder (bundle or vendor what it needs there) and Node's built-ins; install it at user level ($KEEL_HOME/plugins/) to import from elsewhere.";

describe("a workspace code plugin pinned by keel trust runs from keel's pinned copy of its folder", () => {
  it("its own files load: ES modules, a vendored package, JSON, a CommonJS chain, and createRequire of its own file", async () => {
    workspace((w) => ({
      ...plugin(
        `import { value } from "./lib.mjs";\nimport dep from "./vendor/dep/index.mjs";\nimport chain from "./cjs/a.cjs";\nimport data from "./data.json" with { type: "json" };\nimport { createRequire } from "node:module";\nconst own = createRequire(import.meta.url)("./cjs/b.cjs");`,
        "[value, dep, chain, data.n, own].join(',')",
      ),
      "plugins/p/lib.mjs": marked(w, "lib-ran", "lib"),
      "plugins/p/vendor/dep/index.mjs": `export default "dep";`,
      "plugins/p/cjs/a.cjs": `module.exports = require("./b.cjs") + require("./c.json").c + require("./folder");`,
      "plugins/p/cjs/b.cjs": `module.exports = "b";`,
      "plugins/p/cjs/c.json": { c: "c" },
      "plugins/p/cjs/folder/package.json": { main: "main.cjs" },
      "plugins/p/cjs/folder/main.cjs": `module.exports = "f";`,
      "plugins/p/data.json": { n: 1 },
    }));
    await trust();
    for (const how of ["process", "in-process"] as const) {
      const listed = await tools(how);
      expect(listed.messages).toBe("");
      expect(listed.names).toContain("p_tool");
      expect(await call("p_tool", how)).toMatchObject({ ok: true, content: "lib,dep,bcf,1,b" });
    }
    expect(ws!.exists("lib-ran")).toBe(true);
  });

  it("a workspace file outside the plugin folder (../shared.mjs) is not there: the plugin is not loaded, the file never runs, and the diagnostic explains", async () => {
    workspace((w) => ({ ...plugin(`import { value } from "../shared.mjs";`), "plugins/shared.mjs": marked(w, "shared-ran", "s") }));
    await trust();
    for (const how of ["process", "in-process"] as const) {
      const listed = await tools(how);
      expect(listed.names).not.toContain("p_tool");
      expect(listed.messages).toContain("Plugin p: the module could not be imported (");
      expect(listed.messages).toContain("shared.mjs");
      expect(listed.messages).toContain(`a workspace code plugin runs from keel's pinned copy of its folder (${copies()[0]}): ${EXPLAINED}`);
    }
    expect(ws!.exists("shared-ran")).toBe(false);
    // --trust runs the workspace as it is: imported in place.
    expect((await tools("process", "--trust")).names).toContain("p_tool");
    expect(ws!.exists("shared-ran")).toBe(true);
  });

  it("packages in the workspace root's node_modules/ or the plugin's own node_modules/ are not loaded", async () => {
    workspace((w) => ({
      ...plugin(`import "wsdep";`),
      "node_modules/wsdep/package.json": { name: "wsdep", type: "module", main: "index.mjs" },
      "node_modules/wsdep/index.mjs": marked(w, "wsdep-ran", "w"),
      "plugins/p/node_modules/pdep/package.json": { name: "pdep", type: "module", main: "index.mjs" },
      "plugins/p/node_modules/pdep/index.mjs": marked(w, "pdep-ran", "p"),
    }));
    await trust();
    const root = await tools();
    expect(root.names).not.toContain("p_tool");
    expect(root.messages).toContain("wsdep");
    expect(root.messages).toContain(EXPLAINED);

    ws!.write("plugins/p/index.mjs", ws!.read("plugins/p/index.mjs").replace(`import "wsdep";`, `import "pdep";`));
    await trust();
    const own = await tools();
    expect(own.names).not.toContain("p_tool");
    expect(own.messages).toContain("pdep");
    expect(own.messages).toContain(EXPLAINED);
    expect(ws!.exists("wsdep-ran") || ws!.exists("pdep-ran")).toBe(false);
  });

  it("CommonJS require and createRequire of a file outside the folder fail; the file never runs", async () => {
    workspace((w) => ({
      "plugins/p/plugin.json": { name: "p", main: "./index.cjs" },
      "plugins/p/index.cjs": `require("./lib/a.cjs");\nexports.apply = (keel) => keel.registerTool({ name: "p_tool", description: "p", inputSchema: { type: "object" }, execute: () => "ok" });`,
      "plugins/p/lib/a.cjs": `module.exports = require("../../outside.cjs");`,
      "plugins/outside.cjs": `require("node:fs").writeFileSync(${JSON.stringify(w.path("outside-ran"))}, "");`,
      "plugins/q/plugin.json": { name: "q", main: "./index.mjs" },
      "plugins/q/index.mjs": `import { createRequire } from "node:module";\ncreateRequire(import.meta.url)("../outside.cjs");\nexport function apply() {}`,
    }));
    await trust();
    const listed = await tools();
    expect(listed.names).not.toContain("p_tool");
    expect(listed.messages).toMatch(/Plugin p: the module could not be imported \(Cannot find module '..\/..\/outside.cjs'/);
    expect(listed.messages).toMatch(/Plugin q: the module could not be imported \(Cannot find module '..\/outside.cjs'/);
    expect(listed.messages).toContain(EXPLAINED);
    expect(ws!.exists("outside-ran")).toBe(false);
  });

  it("a file of the folder rewritten after keel started (between the start-up pin check and its import) does not run: the pinned bytes do", async () => {
    // The tool imports ./late.mjs when called, after the go file appears: the test rewrites late.mjs in between.
    workspace((w) => {
      const waiting = `async () => {
      const { existsSync, writeFileSync } = await import("node:fs");
      writeFileSync(${JSON.stringify(w.path("ready"))}, "");
      for (let i = 0; i < 1200 && !existsSync(${JSON.stringify(w.path("go"))}); i++) await new Promise((r) => setTimeout(r, 50));
      return (await import("./late.mjs")).value;
    }`;
      return { ...plugin("", `(${waiting})()`), "plugins/p/late.mjs": marked(w, "late-ran", "as pinned") };
    });
    await trust();
    const running = call("p_tool");
    for (let i = 0; i < 1200 && !ws!.exists("ready"); i++) await new Promise((r) => setTimeout(r, 50));
    expect(ws!.exists("ready")).toBe(true);
    ws!.write("plugins/p/late.mjs", marked(ws!, "changed-late-ran", "changed"));
    ws!.write("go", "");
    expect(await running).toMatchObject({ ok: true, content: "as pinned" });
    expect(ws!.exists("late-ran")).toBe(true);
    expect(ws!.exists("changed-late-ran")).toBe(false);
  });

  it("the copy is read-only, reused on later starts, replaced by a new one when the plugin changes and is trusted again; copies unused for 30 days are pruned", async () => {
    // The tool answers where it runs from: its own URL and keel.root.
    workspace(() => ({ ...plugin(`import "./lib.mjs";`, "JSON.stringify([import.meta.url, keel.root])"), "plugins/p/lib.mjs": "export {};" }));
    await trust();
    const first = await call("p_tool");
    expect(first.ok, first.content).toBe(true);
    const [copy] = copies();
    expect(copies()).toHaveLength(1);
    const [url, root] = JSON.parse(first.content) as [string, string];
    expect(url).toBe(`file://${copy}/index.mjs`);
    expect(root).toBe(copy);
    for (const file of [copy!, join(copy!, "index.mjs"), join(copy!, "lib.mjs")]) expect(statSync(file).mode & 0o222).toBe(0);
    const before = { dir: statSync(copy!).ino, file: statSync(join(copy!, "index.mjs")).ino, mtime: statSync(join(copy!, "index.mjs")).mtimeMs };

    expect((await call("p_tool")).ok).toBe(true);
    expect(copies()).toEqual([copy]);
    expect({ dir: statSync(copy!).ino, file: statSync(join(copy!, "index.mjs")).ino, mtime: statSync(join(copy!, "index.mjs")).mtimeMs }).toEqual(before);

    ws!.write("plugins/p/lib.mjs", "export const changed = 1;");
    await trust();
    expect((await call("p_tool")).ok).toBe(true);
    const next = copies().filter((c) => c !== copy);
    expect(next).toHaveLength(1);
    expect(copies()).toContain(copy);

    // A month unused: the old copy goes at the next start (the one in use stays).
    const old = new Date(Date.now() - 31 * 24 * 60 * 60 * 1000);
    utimesSync(copy!, old, old);
    expect((await tools()).names).toContain("p_tool");
    expect(copies()).toEqual(next);
  });

  it("links inside the folder are recreated inside the copy, also one written as an absolute path into the workspace", async () => {
    workspace((w) => ({
      ...plugin(`import { value } from "./abs.mjs";\nimport { value as v2 } from "./rel.mjs";`, "value + v2"),
      "plugins/p/lib.mjs": marked(w, "lib-ran", "l"),
    }));
    symlinkSync(ws!.path("plugins/p/lib.mjs"), ws!.path("plugins/p/abs.mjs"));
    symlinkSync("lib.mjs", ws!.path("plugins/p/rel.mjs"));
    await trust();
    expect(await call("p_tool")).toMatchObject({ ok: true, content: "ll" });
    const [copy] = copies();
    expect(lstatSync(join(copy!, "abs.mjs")).isSymbolicLink()).toBe(true);
    expect(isAbsolute(readlinkSync(join(copy!, "abs.mjs")))).toBe(false);
    expect(readlinkSync(join(copy!, "rel.mjs"))).toBe("lib.mjs");
  });

  it("is not loaded when $KEEL_HOME lies inside the workspace (Node would look up the copy's packages in the workspace's node_modules/)", async () => {
    workspace(() => plugin(""));
    ws!.env.KEEL_HOME = ws!.path("home/.keel");
    await trust();
    const listed = await tools();
    expect(listed.names).not.toContain("p_tool");
    expect(listed.messages).toContain("which lies inside the workspace");
    expect(listed.messages).toContain("Set KEEL_HOME outside the workspace");
  });
});

describe("what the pinned copy leaves alone", () => {
  it('"keel" is the running keel (the copy\'s node_modules/keel), with no keel in the workspace', async () => {
    workspace(() => plugin(`import { ToolError } from "keel";`, `(() => { throw new ToolError("run setup first", "precondition_failed"); })()`));
    await trust();
    expect((await tools()).messages).toBe("");
    expect(await call("p_tool")).toMatchObject({ ok: false, code: "precondition_failed", content: "run setup first" });
    expect(await call("p_tool", "in-process")).toMatchObject({ ok: false, code: "precondition_failed", content: "run setup first" });
  });

  it("--trust imports the plugin in place, from the workspace", async () => {
    workspace(() => plugin("", "import.meta.url"));
    expect(await call("p_tool", "process", "--trust")).toMatchObject({ ok: true, content: `file://${ws!.path("plugins/p/index.mjs")}` });
    expect(copies()).toEqual([]);
  });

  it("a user-level plugin still imports a file outside its folder, next to a pinned workspace plugin", async () => {
    workspace(() => ({ ...plugin(`import "./lib.mjs";`), "plugins/p/lib.mjs": "export {};" }));
    ws!.write("../keel-home/plugins/u/plugin.json", JSON.stringify({ name: "u", main: "./index.mjs" }));
    ws!.write(
      "../keel-home/plugins/u/index.mjs",
      `import { value } from "../../shared-user.mjs";
export function apply(keel) {
  keel.registerTool({ name: "u_tool", description: "u", inputSchema: { type: "object" }, risk: ["read"], readOnly: true, execute: async () => value + (await import("../../shared-user.mjs")).value });
}`,
    );
    ws!.write("../keel-home/shared-user.mjs", `export const value = "user";`);
    await trust();
    const listed = await tools();
    expect(listed.messages).toBe("");
    expect(listed.names).toEqual(expect.arrayContaining(["p_tool", "u_tool"]));
    expect(await call("u_tool")).toMatchObject({ ok: true, content: "useruser" });
  });
});

describe("a pinned copy keeps how Node reads the plugin's files", () => {
  it('a folder without a package.json of its own keeps the "type": "module" of the workspace\'s package.json (its .js entry is an ES module in the copy too)', async () => {
    workspace(() => ({
      "package.json": { name: "ws", type: "module" },
      "plugins/p/plugin.json": { name: "p", main: "./index.js" },
      "plugins/p/index.js": `import { two } from "./lib.js";\nexport function apply(keel) {\n  keel.registerTool({ name: "p_tool", description: "p", inputSchema: { type: "object" }, risk: ["read"], readOnly: true, execute: () => "two is " + two });\n}`,
      "plugins/p/lib.js": "export const two = 2;",
    }));
    await trust();
    const listed = await tools();
    expect(listed.messages).toBe("");
    expect(listed.names).toContain("p_tool");
    expect(await call("p_tool")).toMatchObject({ ok: true, content: "two is 2" });
    expect(copies().map((c) => c.endsWith("-esm"))).toEqual([true]);
  });
});
