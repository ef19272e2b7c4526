import { closeSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openFileInsideSync } from "../../../core/tools/open-inside.js";
import { NOT_SYNC, OUTSIDE, readTextSync } from "../../../core/tools/grep-read.js";

// grep reads small files through this synchronous path; it must accept exactly what openFileInside accepts
// without its full check, and hand everything else back (undefined / NOT_SYNC) or refuse it.
describe("openFileInsideSync and readTextSync (grep's fast path)", () => {
  let base: string | undefined;
  afterEach(() => {
    if (base) rmSync(base, { recursive: true, force: true });
    base = undefined;
  });

  function tree(): { root: string; outside: string } {
    base = realpathSync(mkdtempSync(join(tmpdir(), "keel-open-sync-")));
    const root = join(base, "ws");
    const outside = join(base, "outside");
    mkdirSync(join(root, "src"), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(root, "src", "a.txt"), "inside\n");
    writeFileSync(join(outside, "secret.txt"), "secret\n");
    return { root, outside };
  }

  it("opens a file inside the root and reads it", () => {
    const { root } = tree();
    const fd = openFileInsideSync(root, join(root, "src", "a.txt"), "src/a.txt");
    expect(typeof fd).toBe("number");
    closeSync(fd!);
    expect(readTextSync(root, join(root, "src", "a.txt"))).toBe("inside\n");
  });

  it("refuses a last component that is a symlink (O_NOFOLLOW), as OUTSIDE for grep", () => {
    const { root, outside } = tree();
    symlinkSync(join(outside, "secret.txt"), join(root, "link.txt"));
    expect(() => openFileInsideSync(root, join(root, "link.txt"), "link.txt")).toThrow(/became a symlink/);
    expect(readTextSync(root, join(root, "link.txt"))).toBe(OUTSIDE);
  });

  it("hands back a file reached through a folder that leads outside (the full check decides), never its text", () => {
    const { root, outside } = tree();
    symlinkSync(outside, join(root, "swapped"));
    expect(openFileInsideSync(root, join(root, "swapped", "secret.txt"), "swapped/secret.txt")).toBeUndefined();
    expect(readTextSync(root, join(root, "swapped", "secret.txt"))).toBe(NOT_SYNC);
  });

  it("hands back an empty file (procfs-like files report size 0) and says undefined for a missing one", () => {
    const { root } = tree();
    writeFileSync(join(root, "empty.txt"), "");
    expect(readTextSync(root, join(root, "empty.txt"))).toBe(NOT_SYNC);
    expect(readTextSync(root, join(root, "missing.txt"))).toBeUndefined();
  });
});
