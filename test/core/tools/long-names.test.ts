import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

/** `keel --json --yes call TOOL --input INPUT` in the workspace, parsed. */
async function call(tool: string, input: object) {
  const run = await runKeel(["--json", "--yes", "call", tool, "--input", JSON.stringify(input)], { cwd: ws!.root, env: ws!.env });
  return run.json();
}

describe("file tools on a name or path too long (ENAMETOOLONG, real file system)", () => {
  it("say what is too long, by how many bytes, the limit and what to do, without echoing the whole path", async () => {
    ws = makeWorkspace();
    const name = "a".repeat(300);
    for (const [tool, input] of [
      ["write_file", { path: `${name}.txt`, content: "x" }],
      ["read_file", { path: `${name}/x.txt` }],
      ["grep", { pattern: "x", path: name }],
    ] as const) {
      const obs = await call(tool, input);
      expect(obs, tool).toMatchObject({ ok: false, code: "execution_failed" });
      expect(obs.content, tool).toContain(`the name "${"a".repeat(40)}…" is too long:`);
      expect(obs.content, tool).toMatch(
        /: 30[04] bytes, over the limit of 255 bytes for one file or folder name \(ENAMETOOLONG\); use a name of at most 255 bytes/,
      );
      expect(obs.content, tool).not.toContain(name);
    }
    // every name short enough, the whole path not
    const deep = Array.from({ length: 25 }, () => "d".repeat(200)).join("/");
    const write = await call("write_file", { path: `${deep}/x.txt`, content: "x" });
    expect(write).toMatchObject({ ok: false, code: "execution_failed" });
    expect(write.content).toMatch(
      /^Cannot use the path: the path is too long: \d{4} bytes, over the limit of 4095 bytes for a whole path \(ENAMETOOLONG\); use a shorter path \(fewer or shorter folder names\)\. No file has it/,
    );
  });
});
