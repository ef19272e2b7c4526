import { readFileSync, writeFileSync } from "node:fs";
import { isAbsolute } from "node:path";
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

  it("read_file's window stops at 10 MiB of text, in the units the note and the artifact show (the note said 10485760 characters, the artifact held 16 MiB)", async () => {
    const NOTE = "read_file returns at most 10 MiB (10485760 bytes) of text at once, so that line is cut there";
    const textOf = (obs: { artifacts: { path: string }[] }) => {
      const full = readFileSync(isAbsolute(obs.artifacts[0]!.path) ? obs.artifacts[0]!.path : ws.path(obs.artifacts[0]!.path));
      const at = full.lastIndexOf("\n[window stopped inside line ");
      return { text: full.subarray(0, at), note: full.subarray(at).toString() };
    };
    const many = await call("read_file", { path: "big.log", offset: 1, limit: LINES });
    const manyOut = textOf(many);
    expect(manyOut.text.length).toBe(READ_FILE_MAX_BYTES);
    expect(manyOut.note).toContain(NOTE);
    expect(manyOut.note).toContain(`pass a smaller limit, or offset ${(many.data as { toLine: number }).toLine} to start with that line`);

    // one line of 12 MB, two bytes a character: cut at a whole character, within the same 10 MiB
    writeFileSync(ws.path("wide.txt"), "é".repeat(6_000_000) + "\nnext\n");
    const wide = await call("read_file", { path: "wide.txt", offset: 1, limit: 5 });
    expect(wide.data).toMatchObject({ fromLine: 1, toLine: 1 });
    const wideOut = textOf(wide);
    expect(wideOut.text.length).toBe(READ_FILE_MAX_BYTES);
    expect(wideOut.text.toString()).toBe("é".repeat(READ_FILE_MAX_BYTES / 2));
    expect(wideOut.note).toContain(`${NOTE}; use grep or bash (\`cut -c\`) for the rest of a line that long`);
  });
});
