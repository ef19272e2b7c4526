import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { inBwrapRun, smallDiskDir } from "../../helpers/bwrap.js";

// Runs the real bubblewrap (`bwrap`), which .ci/run installs (Debian package bubblewrap): `--size N --tmpfs DIR`
// gives a real file system of N bytes, so the disk really fills up; `chattr +a` (append-only, which tmpfs keeps
// since Linux 6.0 and root may set) makes the cut back after a short write really fail (ftruncate: EPERM).

const DIST_EVENTS = fileURLToPath(new URL("../../../dist/core/events.js", import.meta.url));

/** The script run inside bwrap: an append-only event log on a tiny tmpfs that fills up mid-write, then gets room again. */
const SCRIPT = `
const { JsonlEventSink, readEvents } = await import(process.argv[1]);
const { closeSync, openSync, readFileSync, unlinkSync, writeSync } = await import("node:fs");
const { execFileSync } = await import("node:child_process");
const dir = process.argv[2];
const file = dir + "/.keel/events.jsonl";
const sink = new JsonlEventSink(file);
sink.emit({ ts: 1, type: "first" });
sink.flush();
execFileSync("chattr", ["+a", file]);
// Fill the disk: the log's last page still has room, so the next write is cut short, not refused.
const fd = openSync(dir + "/filler", "w");
try { for (;;) writeSync(fd, Buffer.alloc(4096)); } catch {}
closeSync(fd);
for (let i = 0; i < 40; i++) sink.emit({ ts: 2 + i, type: "e" + i, pad: "x".repeat(200) });
let error = null;
try { sink.flush(); } catch (e) { error = { name: e.name, message: e.message, cause: e.cause?.code }; }
const whileFull = readFileSync(file, "utf8");
unlinkSync(dir + "/filler");
sink.close();
const after = readFileSync(file, "utf8");
console.log(JSON.stringify({ error, whileFull, after, types: readEvents(file).map((e) => e.type) }));
`;

describe("the event log on a full disk whose short write cannot be cut back (real tmpfs, append-only file, bwrap)", () => {
  it("the error says the disk is full (the write's error, kept as the cause) and that part of a line stayed; the next write starts a new line, and every event is in the log once", async () => {
    const dir = smallDiskDir();
    const r = await inBwrapRun(["--size", "65536", "--tmpfs", dir], [process.execPath, "--input-type=module", "-e", SCRIPT, DIST_EVENTS, dir]);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { error: { name: string; message: string; cause: string } | null; whileFull: string; after: string; types: string[] };
    expect(out.error?.name).toBe("StateError");
    // What happened first (the disk filled up) is what the error says, with what to do …
    expect(out.error?.message).toContain(`keel's event log ${dir}/.keel/events.jsonl: the disk is full (ENOSPC: no space left on device`);
    expect(out.error?.message).toContain("free space on that disk");
    expect(out.error?.cause).toBe("ENOSPC");
    // … and the failed cut back is added to it, not put in its place.
    expect(out.error?.message).toContain("Part of a line stayed in the log: keel could not cut it back (EPERM: operation not permitted");
    expect(out.error?.message).toContain("the next event starts on a new line");
    // The cut back really failed: the log ends in part of a line meanwhile.
    expect(out.whileFull.endsWith("\n")).toBe(false);
    // Once there is room, every event is in the log once, whole: the lines written before the disk filled up are
    // not written again, the rest start on a new line after the torn one (which readers skip).
    expect(out.types).toEqual(["first", ...Array.from({ length: 40 }, (_, i) => `e${i}`)]);
    const lines = out.after.trimEnd().split("\n");
    expect(lines.filter((line) => !isJson(line))).toHaveLength(1);
    expect(out.after.endsWith("\n")).toBe(true);
  });
});

/** True when `line` parses as JSON. */
function isJson(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}
