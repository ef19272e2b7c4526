import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../../core/permissions.js";
import { PATH_MAX, resolvableAncestor } from "../../../core/real-path.js";
import { writeFileTool } from "../../../core/tools/write-file.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

/** `keel --json call TOOL --input INPUT` in the workspace, parsed. */
async function call(tool: string, input: object) {
  const run = await runKeel(["--json", "call", tool, "--input", JSON.stringify(input)], { cwd: ws!.root, env: ws!.env });
  return run.json();
}

/** A workspace with files whose names a repository may hold on Linux: a newline, an escape, a bidi override, bytes that are not UTF-8, a `:`. */
function hostileWorkspace(): void {
  ws = makeWorkspace({ "plain.txt": "needle\n" });
  for (const name of ["a\nb.txt", "b.txt", "esc\u001b[2Jx.txt", "rev\u202etxt.exe", "x.ts:9: fake"]) writeFileSync(ws.path(name), "needle\n");
  // 0xff is never valid in UTF-8: Node shows the name with U+FFFD and cannot open it by that string.
  writeFileSync(Buffer.from(join(ws.root, "bad\xff.txt"), "latin1"), "needle\n");
}

describe("file tools show hostile file names to the model unambiguously (real CLI)", () => {
  it("glob lists a name with a newline as one quoted entry the model can pass back as `path`", async () => {
    hostileWorkspace();
    const glob = await call("glob", { pattern: "*" });
    const lines: string[] = glob.content.split("\n");
    expect(lines).toContain('"a\\nb.txt"');
    expect(lines).toContain("b.txt");
    expect(lines).not.toContain("a");
    expect(lines).toContain('"esc\\u001b[2Jx.txt"');
    expect(lines).toContain('"rev\\u202etxt.exe"');
    expect(lines).toContain('"bad\\ufffd.txt"');
    expect(glob.content).toMatch(/1 path\(s\) above hold \\ufffd: a name that is not valid UTF-8 .* use bash/);
    // The quoted form is the path: read_file opens it.
    const read = await call("read_file", { path: JSON.parse('"a\\nb.txt"') });
    expect(read).toMatchObject({ ok: true, content: expect.stringContaining("needle") });
  });

  it("list_dir quotes such names, sizes a name that is not UTF-8 by its own bytes and flags it", async () => {
    hostileWorkspace();
    const list = await call("list_dir", { path: "." });
    const lines: string[] = list.content.split("\n");
    expect(lines).toContain('"a\\nb.txt"  (7 bytes)');
    expect(lines).toContain('"bad\\ufffd.txt"  (7 bytes)');
    expect(list.data.entries).toContainEqual({ name: "bad\ufffd.txt", type: "file", size: 7, invalidUtf8: true });
    expect(list.content).toMatch(/1 name\(s\) above are not valid UTF-8/);
  });

  it("grep quotes a file name with a newline or a `:` and says why a file went unsearched", async () => {
    hostileWorkspace();
    const grep = await call("grep", { pattern: "needle" });
    const lines: string[] = grep.content.split("\n");
    expect(lines).toContain('"a\\nb.txt":1: needle');
    expect(lines).toContain('"x.ts:9: fake":1: needle');
    expect(lines).toContain("plain.txt:1: needle");
    expect(lines).not.toContain("a");
    expect(grep.data.skippedUnreadable).toBe(1);
    expect(grep.content).toMatch(/1 file\(s\) not searched: they could not be read; 1 of them because a name that is not valid UTF-8/);
  });

  it("read_file of a name shown with \\ufffd says why it cannot be opened", async () => {
    hostileWorkspace();
    const read = await call("read_file", { path: "bad\ufffd.txt" });
    expect(read).toMatchObject({ ok: false, code: "execution_failed" });
    expect(read.content).toMatch(/File not found: "bad\\ufffd\.txt"\..* not valid UTF-8 .*`ls -b`/);
  });

  it("glob and grep say which folders they could not walk because their names are not valid UTF-8 (their files were silently not searched)", async () => {
    ws = makeWorkspace({ "plain.txt": "needle\n", "real\ufffd/ok.txt": "needle\n" });
    mkdirSync(Buffer.from(join(ws.root, "dir\xff", "deep"), "latin1"), { recursive: true });
    writeFileSync(Buffer.from(join(ws.root, "dir\xff", "deep", "hidden.txt"), "latin1"), "needle\n");

    const glob = await call("glob", { pattern: "**/*.txt" });
    // a folder whose name really holds U+FFFD (valid UTF-8) is walked as before
    expect(glob.content.split("\n")).toContain('"real\\ufffd/ok.txt"');
    expect(glob.data.skippedFolders).toBe(1);
    expect(glob.content).toContain('[1 folder(s) not searched: "dir\\ufffd": a folder name that is not valid UTF-8');
    expect(glob.content).toContain("nothing in it was searched; use bash to see it (`ls -b`) and rename it");
    const grep = await call("grep", { pattern: "needle" });
    expect(grep.data.matches).toHaveLength(2);
    expect(grep.data.skippedFolders).toBe(1);
    expect(grep.content).toContain('[1 folder(s) not searched: "dir\\ufffd"');
    // a pattern that does not reach into folders says nothing about them
    const top = await call("glob", { pattern: "*.txt" });
    expect(top.data.skippedFolders).toBe(0);
    expect(top.content).not.toContain("folder(s) not searched");
  });
});

describe("paths longer than the system allows (a model may send any)", () => {
  it("a path tool refuses one at once, quoting it cut with its length (it echoed all of it back)", async () => {
    ws = makeWorkspace({ "a.txt": "x\n" });
    const path = "A/".repeat(3000) + "a";
    const r = await call("read_file", { path });
    expect(r).toMatchObject({ ok: false, code: "execution_failed", metadata: { reason: "too_long" } });
    expect(r.content).toMatch(
      /^Cannot use the path: the path is too long: \d+ bytes, over the limit of 4095 bytes for a whole path \(ENAMETOOLONG\); use a shorter path \(fewer or shorter folder names\)\. No file has it: use list_dir or glob to find the right path\.$/,
    );
    expect(r.content.length).toBeLessThan(600);
  });

  it("the walk starts at the longest ancestor the system can resolve, counted in the bytes it gets (UTF-8, a lone surrogate as U+FFFD)", () => {
    const longest = (abs: string) => {
      let best = abs;
      for (let i = abs.length; Buffer.byteLength(best) >= PATH_MAX; i = abs.lastIndexOf("/", i - 1)) best = i <= 0 ? "/" : abs.slice(0, i);
      return best;
    };
    for (const part of ["a/", "é/", "\u20ac/", "\u{1F600}/", "\ud800/", "xy\u{1F600}\u00e9/"])
      for (const n of [10, 1000, 1500, 3000]) {
        const abs = "/ws/" + part.repeat(n) + "f";
        expect(resolvableAncestor(abs), `${JSON.stringify(part)} × ${n}`).toBe(longest(abs));
      }
  });

  it("the permission phase walks up from 200,000 segments in bounded steps (every probe copied the whole path: minutes)", () => {
    // No timing is asserted: at this size the old walk outlived the test timeout, the new one takes milliseconds.
    ws = makeWorkspace({});
    const p = new PermissionPolicy({ deny: ["write_file(**/.env)"] });
    const write = writeFileTool();
    expect(p.decide("write_file", write, { path: "A/".repeat(200_000) + ".env", content: "x" }, ws.root)).toMatchObject({ action: "deny" });
    expect(p.decide("write_file", write, { path: "A/".repeat(200_000) + ".git/hooks/x", content: "x" }, ws.root)).toMatchObject({ action: "deny" });
    expect(p.decide("write_file", write, { path: "A/".repeat(200_000) + "b.txt", content: "x" }, ws.root)).toMatchObject({ action: "ask" });
  });
});
