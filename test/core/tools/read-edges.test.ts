import { readFileSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

async function call(tool: string, input: object): Promise<any> {
  const run = await runKeel(["--yes", "call", tool, "--json", "--input", JSON.stringify(input)], { cwd: ws.root, env: ws.env });
  return run.json();
}

describe("read_file and grep at the edges of a file", () => {
  it("read_file with an offset past the end says so and how many lines there are, instead of returning nothing", async () => {
    ws = makeWorkspace({ "three.txt": "a\nb\nc" });
    const past = await call("read_file", { path: "three.txt", offset: 10, limit: 5 });
    expect(past).toMatchObject({ ok: true, data: { totalLines: 3, fromLine: 10, pastEnd: true } });
    expect(past.content).toBe("[offset 10 is past the end of three.txt, which has 3 line(s); pass an offset from 1 to 3]");
    const last = await call("read_file", { path: "three.txt", offset: 3 });
    expect(last).toMatchObject({ ok: true, content: "c", data: { fromLine: 3, toLine: 3 } });
  });

  it("read_file of a binary file over 10 MiB says it is binary instead of suggesting a line window", async () => {
    ws = makeWorkspace();
    ws.write("blob.bin", Buffer.alloc(11 * 1024 * 1024, 0).toString("latin1"));
    const whole = await call("read_file", { path: "blob.bin" });
    expect(whole).toMatchObject({ ok: false, code: "execution_failed" });
    expect(whole.content).toContain("blob.bin is a binary file (it contains NUL bytes) of 11534336 bytes; read_file reads text files only.");
    expect(whole.content).not.toContain("offset");
  });

  it("grep matches the first line of a file with a UTF-8 byte order mark without the mark, and does not print it", async () => {
    ws = makeWorkspace({ "bom.sh": "\ufeff#!/bin/sh\necho hi\n", "big.sh": "\ufeff#!/bin/sh\n" + "x\n".repeat(3 * 1024 * 1024) });
    const grep = await call("grep", { pattern: "^#!", glob: "*.sh" });
    expect(grep.data.matches).toEqual([
      { file: "big.sh", line: 1, text: "#!/bin/sh" },
      { file: "bom.sh", line: 1, text: "#!/bin/sh" },
    ]);
  });

  it("reads, greps and edits a UTF-16 file with a byte order mark (little- and big-endian, CRLF) as text, writing it back in its encoding", async () => {
    ws = makeWorkspace();
    const le = Buffer.from("\ufeffname=keel\r\nmode=fast\r\n", "utf16le");
    writeFileSync(ws.path("le.ini"), le);
    writeFileSync(ws.path("be.ini"), Buffer.from(le).swap16());
    const read = await call("read_file", { path: "le.ini" });
    expect(read).toMatchObject({ ok: true, content: "name=keel\r\nmode=fast\r\n", data: { encoding: "utf-16le" } });
    expect((await call("read_file", { path: "be.ini", offset: 2, limit: 1 })).content).toBe("mode=fast\r");
    const grep = await call("grep", { pattern: "^mode=" });
    expect(grep.data.matches).toEqual([
      { file: "be.ini", line: 2, text: "mode=fast" },
      { file: "le.ini", line: 2, text: "mode=fast" },
    ]);
    await call("read_file", { path: "be.ini" });
    for (const path of ["le.ini", "be.ini"]) {
      const edit = await call("edit_file", { path, old_string: "name=keel\nmode=fast", new_string: "name=keel\nmode=slow" });
      expect(edit, JSON.stringify(edit)).toMatchObject({ ok: true, data: { replacements: 1 } });
    }
    const want = Buffer.from("\ufeffname=keel\r\nmode=slow\r\n", "utf16le");
    expect(readFileSync(ws.path("le.ini"))).toEqual(want);
    expect(readFileSync(ws.path("be.ini"))).toEqual(Buffer.from(want).swap16());
  });
});
