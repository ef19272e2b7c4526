import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeelProcess } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

const GOOD = {
  "plugins/good/plugin.json": { name: "good", main: "./index.mjs" },
  "plugins/good/index.mjs": `export function apply(keel) {
    keel.registerTool({ name: "good_tool", description: "Works", inputSchema: { type: "object" }, execute: () => "fine" });
  }`,
};

/** A real keel process (Node's module loader as users run it): the `tools --json` report, parsed. */
async function toolsReport(): Promise<{ exitCode: number; stderr: string; tools: { name: string }[]; diagnostics: { file?: string; message: string }[] }> {
  const r = await runKeelProcess(["--trust", "--json", "tools"], { cwd: ws!.root, env: ws!.env });
  expect(r.stdout, r.stderr).toMatch(/^\{/);
  return {
    exitCode: r.exitCode,
    stderr: r.stderr,
    ...(JSON.parse(r.stdout) as { tools: { name: string }[]; diagnostics: { file?: string; message: string }[] }),
  };
}

describe("code plugins: a module that throws while Node loads it", () => {
  it("an ES module importing a CommonJS file that throws is a diagnostic; keel and the other plugins go on (Node 20 reported the error a second time, as an unhandled rejection that ended the process)", async () => {
    ws = makeWorkspace({
      ...GOOD,
      "plugins/broken/plugin.json": { name: "broken", main: "./index.mjs" },
      "plugins/broken/index.mjs": `import "./x.cjs";\nexport function apply() {}`,
      "plugins/broken/x.cjs": `throw new Error("boom from x.cjs");`,
    });
    const report = await toolsReport();
    expect(report.exitCode, report.stderr).toBe(0);
    expect(report.stderr).not.toMatch(/at Object\.<anonymous>/);
    expect(report.tools.map((t) => t.name)).toContain("good_tool");
    const broken = report.diagnostics.find((d) => d.file === join(ws!.root, "plugins/broken/index.mjs"));
    expect(broken?.message).toMatch(/Plugin broken: the module could not be imported \(boom from x\.cjs\)/);
  });

  it("the same from your own plugin folder ($KEEL_HOME/plugins)", async () => {
    ws = makeWorkspace({});
    const dir = join(ws.keelHome, "plugins", "broken");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "plugin.json"), JSON.stringify({ name: "broken", main: "./index.mjs" }));
    writeFileSync(join(dir, "index.mjs"), `import "./x.cjs";\nexport function apply() {}`);
    writeFileSync(join(dir, "x.cjs"), `throw new Error("boom from your x.cjs");`);
    const report = await toolsReport();
    expect(report.exitCode, report.stderr).toBe(0);
    expect(report.diagnostics.map((d) => d.message).join("\n")).toMatch(/Plugin broken: the module could not be imported \(boom from your x\.cjs\)/);
  });

  it("an unrelated unhandled rejection while a plugin loads still ends the process, as it does without keel's listener", async () => {
    ws = makeWorkspace({
      "plugins/stray/plugin.json": { name: "stray", main: "./index.mjs" },
      "plugins/stray/index.mjs": `Promise.reject(new Error("stray rejection"));\nexport function apply() {}`,
    });
    const r = await runKeelProcess(["--trust", "--json", "tools"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toMatch(/stray rejection/);
  });
});
