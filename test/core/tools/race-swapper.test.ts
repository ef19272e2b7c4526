import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import type { Observation } from "../../../core/types.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { closeAfterEach, openTestHost } from "../../helpers/test-host.js";

let ws: TempWorkspace | undefined;
let host: Host | undefined;
closeAfterEach(() => ({ host, ws }));

/**
 * Swaps the workspace folder `d` with a symlink to the outside folder, both ways, with plain
 * renames, for at most argv[2] rounds. When keel creates `d` while it is briefly missing
 * (write_file makes parent folders), that folder is moved aside (inside the workspace) so the
 * swapping goes on. Prints "ready" once it starts.
 */
const SWAPPER = `
const fs = require("fs"), path = require("path");
const root = process.argv[1], rounds = Number(process.argv[2]);
const d = path.join(root, "d"), real = path.join(root, "d.real"), link = path.join(root, "l");
let stray = 0;
function place(src, dst) {
  for (;;) {
    try { fs.renameSync(src, dst); return; } catch (e) {
      if (e.code === "ENOENT") return;
      fs.renameSync(dst, path.join(root, "stray-" + stray++));
    }
  }
}
process.stdout.write("ready\\n");
for (let i = 0; i < rounds; i++) { place(d, real); place(link, d); place(d, link); place(real, d); }
`;

const OUTSIDE_SECRET = "OUTSIDE-SECRET-7f3a";

/** write_file, read_file, then edit_file on one file: the edit reads and replaces it through checked descriptors. */
async function editAfterWrite(host: Host, i: number): Promise<Observation> {
  const w = await host.runTool({ tool: "write_file", input: { path: "d/e.txt", content: `alpha ${i}\n` } });
  const r = await host.runTool({ tool: "read_file", input: { path: "d/e.txt" } });
  const e = await host.runTool({ tool: "edit_file", input: { path: "d/e.txt", old_string: "alpha", new_string: "beta" } });
  return [w, r].find((o) => JSON.stringify(o).includes(OUTSIDE_SECRET)) ?? e;
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 5));
}

describe("no check-then-use races (a racing swapper, real processes)", () => {
  it("a folder swapped for a symlink to outside during thousands of reads, writes, edits, greps, globs and listings never leaks outside content or writes outside", async () => {
    ws = makeWorkspace({ "d/secret.txt": "inside\n" });
    const outside = join(ws.root, "..", "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "secret.txt"), `${OUTSIDE_SECRET}\n`);
    writeFileSync(join(outside, "e.txt"), `${OUTSIDE_SECRET} alpha\n`);
    writeFileSync(join(outside, `${OUTSIDE_SECRET}.name`), "listing this name would leak it\n");
    symlinkSync(outside, ws.path("l"));
    const before = { entries: readdirSync(outside).sort(), mtimeMs: statSync(outside).mtimeMs };
    host = await openTestHost(ws, { yes: true });

    let swapper: ChildProcess | undefined;
    const observations: Observation[] = [];
    try {
      swapper = spawn(process.execPath, ["-e", SWAPPER, ws.root, "5000000"], { stdio: ["ignore", "pipe", "inherit"] });
      let ready = false;
      let exited = false;
      swapper.stdout!.on("data", () => (ready = true));
      swapper.on("exit", () => (exited = true));
      await until(() => ready || exited);
      expect(exited).toBe(false);
      for (let i = 0; i < 400; i++) {
        const batch = [
          ...Array.from({ length: 4 }, () => host!.runTool({ tool: "read_file", input: { path: "d/secret.txt" } })),
          ...Array.from({ length: 3 }, (_, k) => host!.runTool({ tool: "write_file", input: { path: `d/new${k}.txt`, content: `written ${i}` } })),
          editAfterWrite(host!, i),
          host!.runTool({ tool: "grep", input: { pattern: "SECRET|inside", path: "d" } }),
          host!.runTool({ tool: "list_dir", input: { path: "d" } }),
          host!.runTool({ tool: "glob", input: { pattern: "d/*" } }),
        ];
        observations.push(...(await Promise.all(batch)));
      }
      expect(exited).toBe(false); // the swapper ran during every call
    } finally {
      swapper?.kill("SIGKILL");
    }

    expect(observations.length).toBe(4400);
    const leaked = observations.filter((o) => JSON.stringify(o).includes(OUTSIDE_SECRET));
    expect(leaked).toEqual([]);
    // Nothing was created in (or removed from) the outside folder, not even for a moment.
    expect(readdirSync(outside).sort()).toEqual(before.entries);
    expect(statSync(outside).mtimeMs).toBe(before.mtimeMs);
    // The swap was visible to the calls: some were refused or found nothing while `d` was a link.
    expect(observations.some((o) => !o.ok)).toBe(true);
    expect(observations.some((o) => o.tool === "read_file" && o.ok && o.content === "inside\n")).toBe(true);
    expect(observations.some((o) => o.tool === "edit_file" && o.ok)).toBe(true);
  }, 180_000);
});
