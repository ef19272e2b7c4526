import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import type { Bench, BenchRow } from "./harness.js";

/** Start-up target from issue 2: `keel --help` within this many ms of `node -e 0`. */
const TARGET_MS = 150;
const RUNS = Number(process.env.KEEL_BENCH_RUNS ?? 15);

/**
 * (b) Wall time of `node bin/keel.js --help` and `keel tools --json` vs. `node -e 0`, each the
 * median of RUNS runs, interleaved so load changes hit all three alike.
 */
const bench: Bench = async () => {
  // Compiled to dist/bench/; the shim lives in bin/ at the package root.
  const keelBin = fileURLToPath(new URL("../../bin/keel.js", import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), "keel-bench-startup-"));
  try {
    const ws = join(dir, "ws");
    mkdirSync(join(ws, ".keel"), { recursive: true });
    const env = { ...process.env, KEEL_HOME: join(dir, "home") };
    const cases: Record<string, string[]> = {
      node: ["-e", "0"],
      help: [keelBin, "--help"],
      tools: [keelBin, "tools", "--json"],
    };
    const times: Record<string, number[]> = { node: [], help: [], tools: [] };
    for (let i = 0; i < RUNS + 1; i++) {
      for (const [name, args] of Object.entries(cases)) {
        const started = performance.now();
        const r = await execa(process.execPath, args, { cwd: ws, env, reject: false, stdin: "ignore" });
        const ms = performance.now() - started;
        if (r.exitCode !== 0) throw new Error(`node ${args.join(" ")} exited ${r.exitCode}: ${String(r.stderr)}`);
        if (i > 0) times[name]!.push(ms); // the first round warms the disk cache
      }
    }
    const node = median(times.node!);
    const help = median(times.help!);
    const tools = median(times.tools!);
    const row = (label: string, keel: number, target?: boolean): BenchRow => ({
      case: label,
      baselineLabel: "node -e 0",
      baseline: node,
      keel,
      unit: "ms",
      higherIsBetter: false,
      note: `+${(keel - node).toFixed(0)} ms over node (median of ${RUNS})`,
      ...(target ? { target: `within ${TARGET_MS} ms of node -e 0`, met: keel - node < TARGET_MS } : {}),
    });
    return {
      title: "Start-up: wall time of the keel executable vs. a bare node process",
      rows: [row("keel --help", help, true), row("keel tools --json", tools)],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export default bench;
