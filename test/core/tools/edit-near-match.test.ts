import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

async function call(tool: string, input: object): Promise<any> {
  const run = await runKeel(["--yes", "call", tool, "--json", "--input", JSON.stringify(input)], { cwd: ws.root, env: ws.env });
  return run.json();
}

describe("edit_file points at the nearest match when old_string is not found", () => {
  it("names the lines that match once blanks are ignored (tabs for spaces), and where only the first line matches", async () => {
    ws = makeWorkspace({ "a.py": "def f():\n\tif x:\n\t\treturn 1\n\treturn 2\n" });
    await call("read_file", { path: "a.py" });
    const spaces = await call("edit_file", { path: "a.py", old_string: "    if x:\n        return 1\n", new_string: "    if y:\n        return 1\n" });
    expect(spaces).toMatchObject({ ok: false, code: "execution_failed" });
    expect(spaces.content).toContain(
      "Nearest match: lines 2-3, which match it when the blanks at the start and end of each line are ignored (the indentation, tabs or trailing spaces differ); read them again (read_file with offset 2, limit 2) and copy them exactly.",
    );
    const first = await call("edit_file", { path: "a.py", old_string: "if x:\n    return 3", new_string: "if y:" });
    expect(first.content).toContain("Its first line occurs at line 2 (blanks ignored), but the lines after it differ");
    const none = await call("edit_file", { path: "a.py", old_string: "nothing like it", new_string: "x" });
    expect(none.content).toBe("`old_string` was not found in a.py. Copy the exact text (including whitespace) from read_file's output.");
    expect(ws.read("a.py")).toBe("def f():\n\tif x:\n\t\treturn 1\n\treturn 2\n");
  });
});
