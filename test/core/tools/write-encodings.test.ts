import { readFileSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { storedEncoding } from "../../../core/tools/utf16-text.js";
import { callJson } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

/** `keel --yes --json call TOOL --input INPUT` in the workspace, parsed. */
const call = (tool: string, input: object) => callJson(ws!, tool, input);

const LE = Buffer.from([0xff, 0xfe]);
const BE = Buffer.from([0xfe, 0xff]);
const utf16le = (text: string) => Buffer.concat([LE, Buffer.from(text, "utf16le")]);
const utf16be = (text: string) => Buffer.concat([BE, Buffer.from(text, "utf16le").swap16()]);

describe("write_file keeps the encoding of the file it overwrites (real CLI)", () => {
  it("a UTF-16LE and a UTF-16BE file (with their byte order mark) stay so, and an edit_file after it still applies", async () => {
    ws = makeWorkspace({});
    writeFileSync(ws.path("le.ps1"), utf16le("Write-Host 'old'\r\n"));
    writeFileSync(ws.path("be.txt"), utf16be("old\n"));
    const le = await call("write_file", { path: "le.ps1", content: "Write-Host 'héllo 😀'\r\n" });
    expect(le).toMatchObject({ ok: true, data: { encoding: "utf-16le", created: false } });
    expect(le.content).toContain("UTF-16LE as before");
    // old code: the UTF-8 bytes of the content, mark gone
    expect(readFileSync(ws.path("le.ps1"))).toEqual(utf16le("Write-Host 'héllo 😀'\r\n"));
    expect(await call("write_file", { path: "be.txt", content: "new\n" })).toMatchObject({ ok: true, data: { encoding: "utf-16be" } });
    expect(readFileSync(ws.path("be.txt"))).toEqual(utf16be("new\n"));
    // the baseline write_file recorded is of the bytes it wrote: edit_file may follow at once
    expect(await call("edit_file", { path: "le.ps1", old_string: "héllo", new_string: "bye" })).toMatchObject({ ok: true });
    expect(readFileSync(ws.path("le.ps1"))).toEqual(utf16le("Write-Host 'bye 😀'\r\n"));
  });

  it("a content that starts with U+FEFF gets one mark, and a UTF-8 file with a mark keeps it; a new file and a plain one are UTF-8", async () => {
    ws = makeWorkspace({});
    writeFileSync(ws.path("le.txt"), utf16le("x"));
    await call("write_file", { path: "le.txt", content: "\ufeffy" });
    expect(readFileSync(ws.path("le.txt"))).toEqual(utf16le("y"));
    writeFileSync(ws.path("bom.csv"), "\ufeffa,b\n");
    expect(await call("write_file", { path: "bom.csv", content: "a,b,c\n" })).toMatchObject({ ok: true, data: { encoding: "utf-8-bom" } });
    expect(readFileSync(ws.path("bom.csv"), "utf8")).toBe("\ufeffa,b,c\n");
    expect(await call("write_file", { path: "new.txt", content: "é" })).toMatchObject({ ok: true, data: { encoding: "utf-8", created: true } });
    expect(readFileSync(ws.path("new.txt"))).toEqual(Buffer.from("é", "utf8"));
    writeFileSync(ws.path("plain.txt"), "a");
    await call("write_file", { path: "plain.txt", content: "b" });
    expect(readFileSync(ws.path("plain.txt"), "utf8")).toBe("b");
  });

  it("a binary file that only begins with FF FE is no UTF-16 text: it is overwritten with UTF-8", async () => {
    ws = makeWorkspace({});
    writeFileSync(ws.path("blob.bin"), Buffer.from([0xff, 0xfe, 0x00, 0xd8, 0x41, 0x00])); // a lone high surrogate
    expect(await call("write_file", { path: "blob.bin", content: "text" })).toMatchObject({ ok: true, data: { encoding: "utf-8" } });
    expect(readFileSync(ws.path("blob.bin"), "utf8")).toBe("text");
  });

  it("a file that decodes as UTF-16 in its first 64 KiB only is binary, as read_file shows it: overwritten with UTF-8", async () => {
    ws = makeWorkspace({});
    const bytes = Buffer.concat([utf16le("a".repeat(40 * 1024)), Buffer.from([0x00, 0xd8, 0x41, 0x00])]); // a lone high surrogate at 80 KiB
    writeFileSync(ws.path("late.bin"), bytes);
    expect((await call("read_file", { path: "late.bin" })).content).toMatch(/^\[file application\/octet-stream, 81926 bytes/);
    expect(await call("write_file", { path: "late.bin", content: "text" })).toMatchObject({ ok: true, data: { encoding: "utf-8" } });
    expect(readFileSync(ws.path("late.bin"), "utf8")).toBe("text");
  });
});

describe("storedEncoding", () => {
  it("reads a UTF-16 file from its first bytes, also when they end inside a surrogate pair", () => {
    const whole = utf16le("a😀b");
    expect(storedEncoding(whole.subarray(0, 6), whole.length)).toBe("utf-16le"); // mark, "a", the pair's high half
    expect(storedEncoding(whole, whole.length)).toBe("utf-16le");
    expect(storedEncoding(whole.subarray(0, 6), 6)).toBeUndefined(); // the whole file ends with a lone high half
    expect(storedEncoding(utf16be("a😀b").subarray(0, 6), 10)).toBe("utf-16be");
    expect(storedEncoding(Buffer.from([0xff, 0xfe, 0x41]), 3)).toBeUndefined(); // odd size
    expect(storedEncoding(Buffer.from("\ufeffx", "utf8"), 4)).toBe("utf-8-bom");
    expect(storedEncoding(Buffer.from("plain"), 5)).toBeUndefined();
  });
});
