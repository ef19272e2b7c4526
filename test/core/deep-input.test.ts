import { writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

/** `{"t": [[[…]]]}` nested `depth` arrays deep: past any stack a recursive check has. */
function deepInput(depth: number): string {
  return `{"t":${"[".repeat(depth)}${"]".repeat(depth)}}`;
}

describe("an input nested past the stack", () => {
  let ws: TempWorkspace | undefined;
  afterEach(() => {
    ws?.cleanup();
    ws = undefined;
  });

  it("is an invalid input (an observation), never an exception out of the pipeline", async () => {
    const tree = { $defs: { n: { type: "array", items: { $ref: "#/$defs/n" } } } };
    ws = makeWorkspace({
      ".claw-plugin/plugin.json": {
        name: "deep",
        virtual_tools: [
          {
            name: "tree_doc",
            description: "recursive schema",
            response_template: "ok",
            parameters: { type: "object", properties: { t: { $ref: "#/$defs/n" } }, ...tree },
          },
          {
            name: "set_doc",
            description: "uniqueItems",
            response_template: "ok",
            parameters: { type: "object", properties: { t: { type: "array", uniqueItems: true } } },
          },
        ],
      },
      "script.json": { turns: [] },
    });
    const file = ws.path("input.json");
    writeFileSync(file, deepInput(20_000));
    const call = await runKeel(["--json", "call", "tree_doc", "--input-file", file], { cwd: ws.root, env: ws.env });
    expect(call.exitCode, call.stdout).toBe(1);
    expect(call.json()).toMatchObject({ ok: false, phase: "validate", code: "schema_invalid" });
    expect(call.json().content).toContain("nests too deep");
    const nested = `${"[".repeat(20_000)}${"]".repeat(20_000)}`;
    writeFileSync(file, `{"t":[${nested},${nested}]}`);
    const unique = await runKeel(["--json", "call", "set_doc", "--input-file", file], { cwd: ws.root, env: ws.env });
    expect(unique.json()).toMatchObject({ ok: false, phase: "validate", code: "schema_invalid" });
    // the agent gets the same observation and its turn goes on
    const args = deepInput(20_000);
    writeFileSync(ws.path("script.json"), JSON.stringify({ turns: [{ text: "", toolCalls: [{ name: "tree_doc", arguments: args }] }, { text: "done" }] }));
    const run = await runKeel(["--json", "run", "--model", "scripted:script.json", "go"], { cwd: ws.root, env: ws.env });
    expect(run.json()).toMatchObject({ reason: "answer", text: "done" });
    const shallow = await runKeel(["--json", "call", "tree_doc", "--input", '{"t":[[],[[]]]}'], { cwd: ws.root, env: ws.env });
    expect(shallow.json()).toMatchObject({ ok: true, content: "ok" });
  });
});
