import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

describe("a virtual tool whose parameters schema cannot be compiled", () => {
  let ws: TempWorkspace | undefined;
  afterEach(() => {
    ws?.cleanup();
    ws = undefined;
  });

  it("is refused (fail closed, nothing rendered) and reported by keel plugins with file and field", async () => {
    ws = makeWorkspace({
      ".claw-plugin/plugin.json": {
        name: "sloppy",
        virtual_tools: [
          {
            name: "bad",
            description: "broken schema",
            response_template: "n={n}",
            parameters: { type: "object", properties: { n: { type: "integer", minimum: "abc" } } },
          },
          { name: "good", description: "fine", response_template: "ok {n}" },
        ],
      },
    });
    const bad = await runKeel(["--json", "call", "bad", "--input", '{"n":"str"}'], { cwd: ws.root, env: ws.env });
    expect(bad.exitCode).toBe(1);
    expect(bad.json()).toMatchObject({ ok: false, phase: "validate", code: "precondition_failed" });
    expect(bad.json().content).toContain("plugin sloppy");
    const good = await runKeel(["--json", "call", "good", "--input", '{"n":1}'], { cwd: ws.root, env: ws.env });
    expect(good.json().content).toBe("ok 1");
    const plugins = (await runKeel(["--json", "plugins"], { cwd: ws.root, env: ws.env })).json();
    const diag = plugins.diagnostics.find((d: { path?: string }) => d.path === "virtual_tools.bad.parameters");
    expect(diag).toMatchObject({ severity: "error", file: ws.path(".claw-plugin/plugin.json") });
  });

  it("keel plugins checks schemas without compiling them; one valid by the meta-schema but uncompilable is refused at its first call", async () => {
    ws = makeWorkspace({
      ".claw-plugin/plugin.json": {
        name: "dangling",
        virtual_tools: [{ name: "deref", description: "dangling $ref", response_template: "x", parameters: { $ref: "#/definitions/missing" } }],
      },
    });
    const plugins = (await runKeel(["--json", "plugins"], { cwd: ws.root, env: ws.env })).json();
    expect(plugins.diagnostics.filter((d: { path?: string }) => d.path === "virtual_tools.deref.parameters")).toEqual([]);
    const call = await runKeel(["--json", "call", "deref", "--input", "{}"], { cwd: ws.root, env: ws.env });
    expect(call.exitCode).toBe(1);
    expect(call.json()).toMatchObject({ ok: false, phase: "validate", code: "precondition_failed" });
  });
});
