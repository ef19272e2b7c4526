import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { inBwrapRun, smallDiskDir } from "../../helpers/bwrap.js";

// Runs the real bubblewrap (`bwrap`), which .ci/run installs (Debian package bubblewrap): `--size N --tmpfs DIR`
// gives a real file system of N bytes, so the disk really fills up (no mock of `write`).

const DIST_EVENTS = fileURLToPath(new URL("../../../dist/core/events.js", import.meta.url));

/** The script run inside bwrap: an event log on a tiny tmpfs that fills up between two flushes, then gets room again. */
const SCRIPT = `
const { JsonlEventSink, readEvents } = await import(process.argv[1]);
const { closeSync, openSync, readFileSync, unlinkSync, writeSync } = await import("node:fs");
const dir = process.argv[2];
const file = dir + "/.keel/events.jsonl";
const sink = new JsonlEventSink(file);
sink.emit({ ts: 1, type: "first" });
sink.flush();
// Fill the disk: the log's last page still has room, so the next write is cut short, not refused.
const fd = openSync(dir + "/filler", "w");
try { for (;;) writeSync(fd, Buffer.alloc(4096)); } catch {}
closeSync(fd);
for (let i = 0; i < 40; i++) sink.emit({ ts: 2 + i, type: "e" + i, pad: "x".repeat(200) });
let error = null;
try { sink.flush(); } catch (e) { error = { name: e.name, message: e.message }; }
const whileFull = readFileSync(file, "utf8");
unlinkSync(dir + "/filler");
sink.close();
const after = readFileSync(file, "utf8");
console.log(JSON.stringify({ error, whileFull, after, types: readEvents(file).map((e) => e.type) }));
`;

describe("the event log on a disk that fills up (real tmpfs, bwrap)", () => {
  it("never writes part of a line nor drops events: the failed flush says the disk is full, and the next one writes every event whole", async () => {
    const dir = smallDiskDir();
    const r = await inBwrapRun(["--size", "65536", "--tmpfs", dir], [process.execPath, "--input-type=module", "-e", SCRIPT, DIST_EVENTS, dir]);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { error: { name: string; message: string } | null; whileFull: string; after: string; types: string[] };
    // The flush that could not write everything fails, saying why and what to do.
    expect(out.error?.name).toBe("StateError");
    expect(out.error?.message).toContain(`keel's event log ${dir}/.keel/events.jsonl`);
    expect(out.error?.message).toContain("the disk is full (ENOSPC: no space left on device");
    expect(out.error?.message).toContain("free space on that disk");
    // What is on disk meanwhile is whole lines only (the part that fitted was cut back).
    expect(out.whileFull.endsWith("\n")).toBe(true);
    for (const line of out.whileFull.trimEnd().split("\n")) expect(() => JSON.parse(line)).not.toThrow();
    // Once there is room, every event is written, whole and in order.
    expect(out.types).toEqual(["first", ...Array.from({ length: 40 }, (_, i) => `e${i}`)]);
    for (const line of out.after.trimEnd().split("\n")) expect(() => JSON.parse(line)).not.toThrow();
  });
});
