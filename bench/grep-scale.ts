/**
 * Scale script for the `grep` tool (not a test, not part of `npm run bench`): generates a large tree and
 * times keel's grep against `grep -r` on it, in interleaved rounds.
 *
 *   npm run build
 *   node dist/bench/grep-scale.js gen [dir] [files]     # default /var/tmp/keel-grep-scale, 100000 files (~400 MB)
 *   node dist/bench/grep-scale.js run [dir] [rounds]    # default 5 rounds
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createHost } from "../lib/create-host.js";

const DEFAULT_DIR = "/var/tmp/keel-grep-scale";

/** A deterministic tree: `files` text files of 1–8 KiB in folders of 100, one in 100 holding `NEEDLE_HIT`. */
function generate(dir: string, files: number): void {
  rmSync(dir, { recursive: true, force: true });
  const line = (i: number, n: number): string => `export const value_${i}_${n} = computeSomething(${(i * 7919 + n) % 100003}, "lorem ipsum dolor");\n`;
  for (let i = 0; i < files; i++) {
    const folder = join(dir, `pkg${Math.floor(i / 10000)}`, `mod${Math.floor(i / 100) % 100}`);
    if (i % 100 === 0) mkdirSync(folder, { recursive: true });
    const lines = 10 + ((i * 31) % 90);
    let text = "";
    for (let n = 0; n < lines; n++) text += line(i, n);
    if (i % 100 === 7) text += "// NEEDLE_HIT here\n";
    writeFileSync(join(folder, `file${i}.ts`), text);
  }
  execFileSync("du", ["-sh", dir], { stdio: "inherit" });
}

async function run(dir: string, rounds: number): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), "keel-grep-scale-home-"));
  const env: NodeJS.ProcessEnv = { ...process.env, KEEL_HOME: home, CI: "true" };
  delete env.KEEL_TRUST;
  const host = await createHost({ cwd: dir, env });
  const cases = [
    { name: "no match", pattern: "ZZZ_NOT_THERE_ZZZ", max: 200 },
    { name: "1000 hits", pattern: "NEEDLE_HIT", max: 5000 },
  ];
  try {
    for (let r = 1; r <= rounds; r++)
      for (const c of cases) {
        let t = performance.now();
        const g = spawnSync("grep", ["-r", "-n", "--exclude-dir=.keel", c.pattern, dir], { maxBuffer: 1 << 28 });
        const grepMs = performance.now() - t;
        t = performance.now();
        const obs = await host.runTool({ tool: "grep", input: { pattern: c.pattern, max_results: c.max } });
        const keelMs = performance.now() - t;
        const data = obs.data as { filesSearched?: number; matches?: unknown[] } | undefined;
        const grepHits = g.stdout.toString().split("\n").filter(Boolean).length;
        console.log(
          `round ${r} ${c.name.padEnd(9)} grep -r ${grepMs.toFixed(0).padStart(6)} ms (${grepHits} hits)   keel ${keelMs.toFixed(0).padStart(6)} ms (${data?.matches?.length} hits, ${data?.filesSearched} files)   ratio ${(keelMs / grepMs).toFixed(2)}`,
        );
      }
  } finally {
    await host.close();
    rmSync(home, { recursive: true, force: true });
  }
}

const [cmd, dir = DEFAULT_DIR, n] = process.argv.slice(2);
if (cmd === "gen") generate(dir, Number(n ?? 100_000));
else if (cmd === "run") await run(dir, Number(n ?? 5));
else console.error("usage: node dist/bench/grep-scale.js gen|run [dir] [files|rounds]");
