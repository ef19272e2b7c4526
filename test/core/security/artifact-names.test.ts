import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

describe("artifacts stay in .keel/artifacts whatever the model names its calls (real CLI)", () => {
  it("a tool-call id such as ../../x cannot place an artifact outside", async () => {
    ws = makeWorkspace({ "bin.dat": "a\u0000b" });
    const outside = dirname(ws.root);
    const script = {
      turns: [
        { text: "x", toolCalls: [{ id: "../../../ESCAPED", name: "read_file", arguments: { path: "bin.dat" } }] },
        { text: "x", toolCalls: [{ id: "/tmp/../ABS", name: "bash", arguments: { command: "head -c 40000 /dev/zero | tr '\\0' a" } }] },
        { text: "done" },
      ],
    };
    writeFileSync(ws.path("script.json"), JSON.stringify(script));
    const r = await runKeel(["--yes", "run", "--model", "scripted:script.json", "go"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readdirSync(outside).filter((n) => n.includes("ESCAPED") || n.includes("ABS"))).toEqual([]);
    expect(existsSync(join(ws.root, "..", "..", "ESCAPED-file-0.bin"))).toBe(false);
    const artifacts = readdirSync(ws.path(".keel", "artifacts"));
    expect(artifacts).toEqual(expect.arrayContaining(["_________ESCAPED-file-0.bin", "_tmp____ABS-full-output.txt"]));
  });
});
