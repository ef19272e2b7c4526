import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { READ_FILE_MAX_BYTES } from "../../../core/tools/read-file.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { openTestHost } from "../../helpers/test-host.js";

/** 1,000,000 lines of 20 bytes: a 20 MB text file, over read_file's whole-file cap and grep's in-memory size. */
const LINES = 1_000_000;
const lineText = (n: number) => `line ${String(n).padStart(7, "0")} abcdef`;

let ws: TempWorkspace;
let host: Host;
beforeAll(async () => {
  ws = makeWorkspace({ "small.txt": "a\nb\n" });
  const body = Array.from({ length: LINES }, (_, i) => lineText(i + 1)).join("\n") + "\nNEEDLE at the very end\n";
  writeFileSync(ws.path("big.log"), body);
  host = await openTestHost(ws, { yes: true });
});
afterAll(async () => {
  await host?.close();
  ws?.cleanup();
});
const call = (tool: string, input: unknown) => host.runTool({ tool, input });

describe("large files (~20 MB)", () => {
  it("read_file refuses a whole read over the cap, saying to pass offset/limit", async () => {
    expect(ws.read("big.log").length).toBeGreaterThan(READ_FILE_MAX_BYTES);
    const obs = await call("read_file", { path: "big.log" });
    expect(obs).toMatchObject({ ok: false, code: "execution_failed" });
    expect(obs.content).toMatch(/Pass offset and limit/);
  });

  it("read_file with offset/limit streams the file and returns only the window", async () => {
    const mid = await call("read_file", { path: "big.log", offset: 500_000, limit: 3 });
    expect(mid).toMatchObject({ ok: true, truncated: false, data: { fromLine: 500_000, toLine: 500_002 } });
    expect(mid.content).toBe([lineText(500_000), lineText(500_001), lineText(500_002)].join("\n"));

    const tail = await call("read_file", { path: "big.log", offset: LINES, limit: 10 });
    expect(tail).toMatchObject({ ok: true, data: { fromLine: LINES, toLine: LINES + 2, totalLines: LINES + 2 } });
    expect(tail.content).toBe(`${lineText(LINES)}\nNEEDLE at the very end\n`);
  });

  it("read_file caps a huge window through the pipeline's truncation (full text kept as an artifact)", async () => {
    const obs = await call("read_file", { path: "big.log", offset: 1, limit: 100_000 });
    expect(obs).toMatchObject({ ok: true, truncated: true, data: { fromLine: 1, toLine: 100_000 } });
    expect(obs.content.length).toBeLessThan(100_000);
    expect(obs.artifacts[0]).toMatchObject({ kind: "full-output" });
  });

  it("grep streams files over its in-memory size instead of skipping them", async () => {
    const obs = await call("grep", { pattern: "^NEEDLE", path: "." });
    expect(obs).toMatchObject({ ok: true, data: { filesSearched: 2, skippedBinary: 0 } });
    expect(obs.content).toBe(`big.log:${LINES + 1}: NEEDLE at the very end`);
    const capped = await call("grep", { pattern: "abcdef$", path: "big.log", max_results: 2 });
    expect(capped.data).toMatchObject({
      matches: [
        { line: 1, text: lineText(1) },
        { line: 2, text: lineText(2) },
      ],
      truncated: true,
    });
  });
});
