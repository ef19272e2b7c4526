import { open } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_LINE_CHARS, scanLines } from "../../../core/tools/scan-lines.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

/** One line of `MAX_LINE_CHARS + 4 MiB` characters (a committed file git compresses to almost nothing), then two short lines. */
function hugeLineFile(w: TempWorkspace): string {
  return w.write("one-line.txt", `needle ${"a".repeat(MAX_LINE_CHARS + (4 << 20))} tail-marker\nsecond needle\nthird\n`);
}

describe("one huge line cannot exhaust memory (streamed reads)", () => {
  it("scanLines hands on a line cut at MAX_LINE_CHARS and counts it; later lines keep their numbers", async () => {
    ws = makeWorkspace();
    const file = await open(hugeLineFile(ws), "r");
    const seen: { n: number; length: number; start: string }[] = [];
    try {
      const result = await scanLines(file, {
        signal: new AbortController().signal,
        onLine: (line, n) => void seen.push({ n, length: line.length, start: line.slice(0, 13) }),
      });
      expect(result).toMatchObject({ binary: false, complete: true, lines: 4, cutLines: 1 });
    } finally {
      await file.close();
    }
    expect(seen).toEqual([
      { n: 1, length: MAX_LINE_CHARS, start: "needle aaaaaa" },
      { n: 2, length: 13, start: "second needle" },
      { n: 3, length: 5, start: "third" },
      { n: 4, length: 0, start: "" },
    ]);
  });

  it("grep and read_file still work on the file (real CLI)", async () => {
    ws = makeWorkspace();
    hugeLineFile(ws);
    const grep = await runKeel(["--json", "call", "grep", "--input", JSON.stringify({ pattern: "needle|tail-marker" })], { cwd: ws.root, env: ws.env });
    const matches = grep.json().data.matches as { file: string; line: number }[];
    expect(matches.map((m) => m.line)).toEqual([1, 2]);
    // The cut is said: "tail-marker" past the cut was not searched.
    expect(grep.json().data.cutLines).toBe(1);
    expect(grep.json().content).toContain(
      `[1 line(s) longer than ${MAX_LINE_CHARS} characters were searched in their first ${MAX_LINE_CHARS} characters only]`,
    );
    const read = await runKeel(["--json", "call", "read_file", "--input", JSON.stringify({ path: "one-line.txt", offset: 2, limit: 1 })], {
      cwd: ws.root,
      env: ws.env,
    });
    expect(read.json()).toMatchObject({ ok: true });
    expect(read.json().content).toContain("second needle");
  });
});
