import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JsonlEventSink } from "../core/events.js";
import { Host } from "../core/host.js";
import { builtinTools } from "../core/tools/builtin-tools.js";
import { throughput, type Bench } from "./harness.js";

/** Pipeline overhead target from issue 2 (µs per call above a direct read). */
const TARGET_US = 50;
const DURATION_MS = Number(process.env.KEEL_BENCH_MS ?? 4000);

/**
 * (a) `read_file` of a small file through `host.runTool` with a real JSONL event sink vs. a
 * direct `fs.promises.readFile` of the same file, interleaved in rounds so drift hits both.
 * `KEEL_BENCH_MS` sets the total measuring time (default 2000 ms per side).
 */
const bench: Bench = async () => {
  const dir = mkdtempSync(join(tmpdir(), "keel-bench-pipeline-"));
  try {
    const ws = join(dir, "ws");
    mkdirSync(join(ws, ".keel"), { recursive: true });
    writeFileSync(join(ws, "small.txt"), "hello keel\n".repeat(20));
    const events = new JsonlEventSink(join(ws, ".keel", "events.jsonl"));
    const host = await Host.create({ cwd: ws, config: {}, events, env: { ...process.env, KEEL_HOME: join(dir, "home") } });
    await host.use(builtinTools());
    await host.init();
    const file = join(ws, "small.txt");
    const viaKeel = async () => {
      const obs = await host.runTool({ tool: "read_file", input: { path: "small.txt" } });
      if (!obs.ok) throw new Error(`read_file failed: ${obs.content}`);
    };
    const direct = async () => {
      await readFile(file, "utf8");
    };
    // Short interleaved rounds; medians keep a busy machine's spikes out of the figures. CPU time
    // (this process, thread pool included) is measured too: it is what keel adds, whatever the load.
    const rounds = 20;
    const baseRates: number[] = [];
    const keelRates: number[] = [];
    const overheads: number[] = [];
    const cpuOverheads: number[] = [];
    await throughput(100, viaKeel);
    for (let i = 0; i < rounds; i++) {
      const b = await measure(DURATION_MS / rounds / 2, direct);
      const k = await measure(DURATION_MS / rounds / 2, viaKeel);
      baseRates.push(b.rate);
      keelRates.push(k.rate);
      overheads.push(1e6 / k.rate - 1e6 / b.rate);
      cpuOverheads.push(k.cpuUs - b.cpuUs);
    }
    const base = median(baseRates);
    const keel = median(keelRates);
    const overheadUs = median(overheads);
    const cpuOverheadUs = median(cpuOverheads);
    const logged = readFileSync(join(ws, ".keel", "events.jsonl"), "utf8").split("\n").length;
    await host.close();
    events.close();
    return {
      title: "Pipeline overhead: read_file through runToolIntent (events on) vs fs.promises.readFile",
      rows: [
        {
          case: "read_file of a 220-byte file",
          baselineLabel: "fs.promises.readFile",
          baseline: base,
          keel,
          unit: "calls/s",
          higherIsBetter: true,
          note: `overhead ${overheadUs.toFixed(1)} µs/call wall, ${cpuOverheadUs.toFixed(1)} µs/call CPU (medians of ${rounds} interleaved rounds); ${logged} events logged`,
          target: `< ${TARGET_US} µs/call overhead`,
          met: overheadUs < TARGET_US,
        },
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

/** Calls per second and CPU µs per call of `fn` over about `ms` milliseconds. */
async function measure(ms: number, fn: () => Promise<void>): Promise<{ rate: number; cpuUs: number }> {
  for (let i = 0; i < 20; i++) await fn();
  let n = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  while (performance.now() - start < ms) {
    await fn();
    n++;
  }
  const elapsed = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { rate: (n * 1000) / elapsed, cpuUs: (used.user + used.system) / n };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export default bench;
