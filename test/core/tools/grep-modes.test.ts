import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

async function grep(input: object): Promise<any> {
  const run = await runKeel(["call", "grep", "--json", "--input", JSON.stringify(input)], { cwd: ws.root, env: ws.env });
  return run.json();
}

const numbered = (n: number, hits: number[]) =>
  Array.from({ length: n }, (_, i) => (hits.includes(i + 1) ? `hit ${i + 1}` : `line ${i + 1}`)).join("\n") + "\n";

describe("grep context lines and output modes (as ripgrep's -C, -l and -c)", () => {
  it("shows context lines around matches as file-line- text, merging groups that touch and separating others with --", async () => {
    ws = makeWorkspace({ "a.txt": numbered(12, [3, 5, 11]), "b.txt": numbered(3, [1]) });
    const out = await grep({ pattern: "^hit", context: 1 });
    expect(out.ok).toBe(true);
    expect(out.content).toBe(
      [
        "a.txt-2- line 2",
        "a.txt:3: hit 3",
        "a.txt-4- line 4",
        "a.txt:5: hit 5",
        "a.txt-6- line 6",
        "--",
        "a.txt-10- line 10",
        "a.txt:11: hit 11",
        "a.txt-12- line 12",
        "--",
        "b.txt:1: hit 1",
        "b.txt-2- line 2",
      ].join("\n"),
    );
    // data.matches holds the matching lines only
    expect(out.data.matches.map((m: { line: number }) => m.line)).toEqual([3, 5, 11, 1]);
  });

  it("lists the files with a match, or counts matching lines per file, capped by max_results", async () => {
    ws = makeWorkspace({ "a.txt": numbered(12, [3, 5, 11]), "b.txt": numbered(3, [1]), "c.txt": "nothing\n" });
    const files = await grep({ pattern: "^hit", output_mode: "files_with_matches" });
    expect(files.content).toBe("a.txt\nb.txt");
    expect(files.data.files).toEqual([{ file: "a.txt" }, { file: "b.txt" }]);
    const count = await grep({ pattern: "^hit", output_mode: "count" });
    expect(count.content).toBe("a.txt:3\nb.txt:1");
    expect(count.data.files).toEqual([
      { file: "a.txt", count: 3 },
      { file: "b.txt", count: 1 },
    ]);
    const capped = await grep({ pattern: "^hit", output_mode: "count", max_results: 1 });
    expect(capped.content).toBe("a.txt:3\n[stopped at max_results=1; narrow the pattern, path or glob, or raise max_results]");
    expect(capped.data.truncated).toBe(true);
  });
});
