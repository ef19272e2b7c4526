import { readFileSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { callJson } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

/** `keel --yes --json call TOOL --input INPUT` in the workspace, parsed. */
const call = (tool: string, input: object) => callJson(ws!, tool, input);

describe("edit_file keeps the bytes it was not asked to change (real CLI)", () => {
  it("edits a file that is not valid UTF-8 (Latin-1) as bytes: its other bytes stay, not U+FFFD", async () => {
    ws = makeWorkspace({});
    const before = Buffer.from("// Caf\xe9 \xa9 1998\nconst x = 1;\n", "latin1");
    writeFileSync(ws.path("old.c"), before);
    expect((await call("read_file", { path: "old.c" })).content).toContain("Caf\ufffd");
    expect(await call("edit_file", { path: "old.c", old_string: "x = 1", new_string: "x = 2" })).toMatchObject({ ok: true });
    expect(readFileSync(ws.path("old.c"))).toEqual(Buffer.from("// Caf\xe9 \xa9 1998\nconst x = 2;\n", "latin1"));
    // Text copied from read_file with U+FFFD in it is not what the file holds: the refusal says so.
    const copied = await call("edit_file", { path: "old.c", old_string: "Caf\ufffd", new_string: "Cafe" });
    expect(copied).toMatchObject({ ok: false, code: "execution_failed" });
    expect(copied.content).toMatch(/not valid UTF-8.*Leave the \ufffd characters out/);
  });

  it("keeps a CRLF file's line endings when old_string is written with plain newlines", async () => {
    ws = makeWorkspace({});
    writeFileSync(ws.path("win.txt"), "one\r\ntwo\r\nthree\r\n");
    await call("read_file", { path: "win.txt" });
    expect(await call("edit_file", { path: "win.txt", old_string: "one\ntwo", new_string: "1\n2\n2.5" })).toMatchObject({ ok: true });
    expect(readFileSync(ws.path("win.txt"), "utf8")).toBe("1\r\n2\r\n2.5\r\nthree\r\n");
  });
});
