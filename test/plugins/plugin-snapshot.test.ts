import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { pluginFolderDigest } from "../../plugins/plugin-folder-digest.js";
import { pluginSnapshot, snapshotsDir } from "../../plugins/plugin-snapshot.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

// keel's copy of a pinned plugin folder, written from the bytes it hashes as it writes them.

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

function snapshot(w: TempWorkspace): ReturnType<typeof pluginSnapshot> {
  const folder = pluginFolderDigest(w.path("plugins/p"));
  if (!folder.ok) throw new Error(folder.reason);
  return pluginSnapshot({ folder: w.path("plugins/p"), ...folder, keelHome: w.keelHome, workspaceRoot: w.root });
}

describe("pluginSnapshot", () => {
  it("writes nothing when a file changed after the start-up walk, or became a FIFO (never waited on)", () => {
    ws = makeWorkspace({ "plugins/p/index.mjs": "export {};", "plugins/p/lib.mjs": "export const a = 1;" });
    const folder = pluginFolderDigest(ws.path("plugins/p"));
    if (!folder.ok) throw new Error(folder.reason);
    const src = { folder: ws.path("plugins/p"), ...folder, keelHome: ws.keelHome, workspaceRoot: ws.root };

    ws.write("plugins/p/lib.mjs", "export const a = 2;");
    expect(pluginSnapshot(src)).toEqual({ ok: false, file: ws.path("plugins/p/lib.mjs"), reason: "it changed since keel checked the plugin folder at start" });
    rmSync(ws.path("plugins/p/lib.mjs"));
    execFileSync("mkfifo", [ws.path("plugins/p/lib.mjs")]);
    expect(pluginSnapshot(src)).toMatchObject({ ok: false, file: ws.path("plugins/p/lib.mjs") });
    // No copy, and no temporary folder left behind.
    expect(readdirSync(snapshotsDir(ws.keelHome))).toEqual([]);
  });

  it("writes the pinned bytes read-only, and reuses the copy as it is", () => {
    ws = makeWorkspace({ "plugins/p/index.mjs": "export {};", "plugins/p/sub/lib.mjs": "export const a = 1;" });
    const first = snapshot(ws);
    if (!first.ok) throw new Error(first.reason);
    expect(readFileSync(join(first.dir, "sub/lib.mjs"), "utf8")).toBe("export const a = 1;");
    expect(statSync(join(first.dir, "sub")).mode & 0o222).toBe(0);
    const ino = statSync(join(first.dir, "sub/lib.mjs")).ino;
    expect(snapshot(ws)).toEqual(first);
    expect(statSync(join(first.dir, "sub/lib.mjs")).ino).toBe(ino);
  });

  it("a line break in a name or link is refused: two different folders never share a digest (and a copy)", () => {
    // One line per entry: a link `a` to "x\nb" and a file `c` wrote the same lines as a link `a` to "x" and a file "b\nc".
    ws = makeWorkspace({ "plugins/one/c": "code", "plugins/two/b\nc": "code" });
    symlinkSync("x\nb", ws.path("plugins/one/a"));
    symlinkSync("x", ws.path("plugins/two/a"));
    const one = pluginFolderDigest(ws.path("plugins/one"));
    const two = pluginFolderDigest(ws.path("plugins/two"));
    expect(one.ok && two.ok && one.digest === two.digest).toBe(false);
    expect(one).toMatchObject({ ok: false, file: ws.path("plugins/one/a"), reason: expect.stringMatching(/line break/) });
    expect(two).toMatchObject({ ok: false, file: ws.path("plugins/two/b\nc"), reason: expect.stringMatching(/line break/) });
  });
});
