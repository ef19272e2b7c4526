import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MemoryBaselineStore } from "../../../core/file-baselines.js";
import type { Host } from "../../../core/host.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { closeAfterEach, openTestHost } from "../../helpers/test-host.js";

let ws: TempWorkspace;
let host: Host | undefined;
closeAfterEach(() => ({ host, ws }));

async function open(files: Record<string, string> = {}) {
  ws = makeWorkspace(files);
  host = await openTestHost(ws, { yes: true });
  return host;
}
const call = (tool: string, input: unknown) => host!.runTool({ tool, input });

describe("read_file", () => {
  it("reads a line window and keeps binary files out of content", async () => {
    await open({ "lines.txt": "one\ntwo\nthree\nfour\n", "blob.bin": "\u0000\u0001\u0002" });
    const win = await call("read_file", { path: "lines.txt", offset: 2, limit: 2 });
    expect(win).toMatchObject({ ok: true, content: "two\nthree", data: { fromLine: 2, toLine: 3, totalLines: 5 } });
    const bin = await call("read_file", { path: "blob.bin" });
    expect(bin.ok).toBe(true);
    expect(bin.content).toMatch(/saved to \.keel\/artifacts\//);
    expect(bin.artifacts[0]).toMatchObject({ kind: "file", bytes: 3 });
    expect((await call("read_file", { path: "missing.txt" })).content).toContain("File not found");
  });
});

describe("write_file", () => {
  it("creates parent folders, reports created vs overwritten, and enables a following edit", async () => {
    await open();
    const first = await call("write_file", { path: "deep/er/a.txt", content: "one two\n" });
    expect(first).toMatchObject({ ok: true, data: { path: "deep/er/a.txt", created: true, bytes: 8 } });
    expect(ws.read("deep/er/a.txt")).toBe("one two\n");
    const edit = await call("edit_file", { path: "deep/er/a.txt", old_string: "two", new_string: "2" });
    expect(edit).toMatchObject({ ok: true, data: { replacements: 1 } });
    const again = await call("write_file", { path: "deep/er/a.txt", content: "x" });
    expect(again).toMatchObject({ ok: true, data: { created: false } });
    expect(ws.read("deep/er/a.txt")).toBe("x");
  });

  it("refuses paths outside the workspace without writing", async () => {
    await open();
    const obs = await call("write_file", { path: "../escape.txt", content: "x" });
    expect(obs).toMatchObject({ ok: false, code: "permission_denied" });
    expect(ws.exists("../escape.txt")).toBe(false);
    const linkDir = join(ws.root, "..", "outdir");
    mkdirSync(linkDir);
    symlinkSync(linkDir, ws.path("out"));
    const viaLink = await call("write_file", { path: "out/new.txt", content: "x" });
    expect(viaLink).toMatchObject({ ok: false, code: "permission_denied" });
    expect(ws.exists("out/new.txt")).toBe(false);
  });
});

describe("edit_file", () => {
  it("requires a read first, then replaces one unique occurrence", async () => {
    await open({ "a.ts": "const a = 1;\nconst b = 2;\n" });
    const unread = await call("edit_file", { path: "a.ts", old_string: "1", new_string: "10" });
    expect(unread).toMatchObject({ ok: false, code: "precondition_failed", metadata: { reason: "not_read" } });
    expect((await call("read_file", { path: "a.ts" })).ok).toBe(true);
    const ok = await call("edit_file", { path: "a.ts", old_string: "a = 1", new_string: "a = $& 10" });
    expect(ok.ok).toBe(true);
    expect(ws.read("a.ts")).toBe("const a = $& 10;\nconst b = 2;\n");
  });

  it("says a missing file was not found and that write_file creates files", async () => {
    await open();
    const obs = await call("edit_file", { path: "nope.txt", old_string: "a", new_string: "b" });
    expect(obs).toMatchObject({ ok: false, code: "precondition_failed", metadata: { reason: "missing" } });
    expect(obs.content).toContain("File not found: nope.txt");
    expect(obs.content).toContain("write_file");
    expect(obs.content).not.toContain("has not been read");
    expect(ws.exists("nope.txt")).toBe(false);
  });

  it("refuses when the file changed after the read (content, size or mtime)", async () => {
    await open({ "a.txt": "hello world\n" });
    await call("read_file", { path: "a.txt" });
    writeFileSync(ws.path("a.txt"), "hello WORLD\n"); // same size, new content
    const stale = await call("edit_file", { path: "a.txt", old_string: "hello", new_string: "bye" });
    expect(stale).toMatchObject({ ok: false, code: "precondition_failed", metadata: { reason: "stale" } });
    expect(stale.content).toMatch(/read_file on it again/);
    await call("read_file", { path: "a.txt" });
    utimesSync(ws.path("a.txt"), new Date(), new Date(Date.now() + 5_000)); // only mtime changes
    expect((await call("edit_file", { path: "a.txt", old_string: "hello", new_string: "bye" })).code).toBe("precondition_failed");
    expect(ws.read("a.txt")).toBe("hello WORLD\n");
  });

  it("names the count when old_string is ambiguous, and replace_all replaces every one", async () => {
    await open({ "a.txt": "x\nx\nx\nx\n" });
    await call("read_file", { path: "a.txt" });
    const amb = await call("edit_file", { path: "a.txt", old_string: "x", new_string: "y" });
    expect(amb).toMatchObject({ ok: false, code: "execution_failed", metadata: { occurrences: 4 } });
    expect(amb.content).toContain("occurs 4 times");
    const all = await call("edit_file", { path: "a.txt", old_string: "x", new_string: "y", replace_all: true });
    expect(all).toMatchObject({ ok: true, data: { replacements: 4 } });
    expect(ws.read("a.txt")).toBe("y\ny\ny\ny\n");
  });

  it("says when old_string is missing, and refuses a no-op edit", async () => {
    await open({ "a.txt": "abc\n" });
    await call("read_file", { path: "a.txt" });
    const missing = await call("edit_file", { path: "a.txt", old_string: "zzz", new_string: "y" });
    expect(missing).toMatchObject({ ok: false, code: "execution_failed" });
    expect(missing.content).toContain("not found");
    const noop = await call("edit_file", { path: "a.txt", old_string: "abc", new_string: "abc" });
    expect(noop.content).toContain("identical");
  });

  it("uses the run's own baseline store when given one (sessions)", async () => {
    await open({ "a.txt": "abc\n" });
    await call("read_file", { path: "a.txt" });
    const session = new MemoryBaselineStore();
    const obs = await host!.runTool({ tool: "edit_file", input: { path: "a.txt", old_string: "abc", new_string: "d" } }, { fileBaselines: session });
    expect(obs.code).toBe("precondition_failed");
    await host!.runTool({ tool: "read_file", input: { path: "a.txt" } }, { fileBaselines: session });
    expect(session.map.size).toBe(1);
    const ok = await host!.runTool({ tool: "edit_file", input: { path: "a.txt", old_string: "abc", new_string: "d" } }, { fileBaselines: session });
    expect(ok.ok).toBe(true);
  });
});

describe("list_dir", () => {
  it("lists entries sorted with type and size, capped with a note", async () => {
    await open({ "b.txt": "12345", "a/inner.txt": "x", "c.bin": "\u0000\u0001" });
    symlinkSync("b.txt", ws.path("link"));
    const obs = await call("list_dir", {});
    expect(obs.ok).toBe(true);
    const entries = (obs.data as { entries: { name: string; type: string; size: number }[] }).entries;
    expect(entries.map((e) => e.name)).toEqual([".keel", "a", "b.txt", "c.bin", "link"]);
    expect(entries.find((e) => e.name === "b.txt")).toEqual({ name: "b.txt", type: "file", size: 5 });
    expect(entries.find((e) => e.name === "a")!.type).toBe("dir");
    expect(entries.find((e) => e.name === "link")!.type).toBe("symlink");
    expect(obs.content).toContain("a/");
    const capped = await call("list_dir", { path: ".", limit: 2 });
    expect(capped.data).toMatchObject({ total: 5, truncated: true });
    expect(capped.content).toContain("3 more entries not shown");
    expect((await call("list_dir", { path: "b.txt" })).content).toContain("not a directory");
    expect((await call("list_dir", { path: "../" })).code).toBe("permission_denied");
  });
});

describe("glob", () => {
  it("finds files, skipping .git, node_modules and .keel unless asked", async () => {
    await open({ "src/a.ts": "", "src/deep/b.ts": "", "src/c.js": "", "node_modules/m/index.ts": "", ".git/hooks/x.ts": "" });
    const obs = await call("glob", { pattern: "**/*.ts" });
    expect(obs.data).toMatchObject({ paths: ["src/a.ts", "src/deep/b.ts"], total: 2, truncated: false });
    const all = await call("glob", { pattern: "**/*.ts", include_ignored: true });
    expect((all.data as { paths: string[] }).paths).toEqual(expect.arrayContaining([".git/hooks/x.ts", "node_modules/m/index.ts"]));
    const sub = await call("glob", { pattern: "*.ts", path: "src/deep" });
    expect((sub.data as { paths: string[] }).paths).toEqual(["src/deep/b.ts"]);
    expect((await call("glob", { pattern: "*.py" })).content).toContain("No files match");
    expect(await call("glob", { pattern: "*", path: "src/a.ts" })).toMatchObject({ ok: false, code: "execution_failed" });
    expect((await call("glob", { pattern: "*", path: "missing" })).content).toContain("not found");
  });

  it("refuses patterns that climb out and does not follow symlinks out of the workspace", async () => {
    await open({ "a.txt": "" });
    const outside = join(ws.root, "..", "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "secret.txt"), "s");
    symlinkSync(outside, ws.path("link"));
    expect((await call("glob", { pattern: "../**/*.txt" })).code).toBe("permission_denied");
    expect((await call("glob", { pattern: "/etc/*" })).code).toBe("permission_denied");
    const obs = await call("glob", { pattern: "**/*.txt" });
    expect((obs.data as { paths: string[] }).paths).toEqual(["a.txt"]);
  });

  it("caps the result list with a note", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 1005; i++) files[`many/f${String(i).padStart(4, "0")}.txt`] = "";
    await open(files);
    const obs = await call("glob", { pattern: "many/*.txt" });
    expect(obs.data).toMatchObject({ total: 1005, truncated: true });
    expect((obs.data as { paths: string[] }).paths).toHaveLength(1000);
    expect(obs.content).toContain("5 more matches not shown");
  });
});

describe("grep", () => {
  it("prints file:line: text for a JS regex, with glob filter and ignore_case", async () => {
    await open({ "src/a.ts": "const foo = 1;\nlet bar = foo;\n", "src/b.js": "FOO()\n", "notes.md": "foo bar\n" });
    const obs = await call("grep", { pattern: "fo+\\b", path: "src" });
    expect(obs.content.split("\n")).toEqual(["src/a.ts:1: const foo = 1;", "src/a.ts:2: let bar = foo;"]);
    const ci = await call("grep", { pattern: "^foo", ignore_case: true });
    expect(ci.content.split("\n").sort()).toEqual(["notes.md:1: foo bar", "src/b.js:1: FOO()"]);
    const filtered = await call("grep", { pattern: "foo", glob: "**/*.md" });
    expect(filtered.content).toBe("notes.md:1: foo bar");
    const single = await call("grep", { pattern: "bar", path: "src/a.ts" });
    expect(single.content).toBe("src/a.ts:2: let bar = foo;");
  });

  it("skips binary files, honours max_results and reports a bad regex", async () => {
    await open({ "bin.dat": "needle\u0000\u0001binary", "text.txt": "needle 1\nneedle 2\nneedle 3\n" });
    const obs = await call("grep", { pattern: "needle" });
    expect(obs.content.split("\n")).toEqual(["text.txt:1: needle 1", "text.txt:2: needle 2", "text.txt:3: needle 3"]);
    expect(obs.data).toMatchObject({ skippedBinary: 1 });
    const capped = await call("grep", { pattern: "needle", max_results: 2 });
    expect(capped.content).toContain("stopped at max_results=2");
    expect((capped.data as { matches: unknown[] }).matches).toHaveLength(2);
    const bad = await call("grep", { pattern: "(unclosed" });
    expect(bad).toMatchObject({ ok: false, code: "execution_failed" });
    expect(bad.content).toContain("not a valid regular expression");
    expect((await call("grep", { pattern: "x", path: "../.." })).code).toBe("permission_denied");
    expect((await call("grep", { pattern: "zzz" })).content).toMatch(/^No matches/);
  });
});
