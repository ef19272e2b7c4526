import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Host } from "../core/host.js";
import { builtinTools } from "../core/tools/builtin-tools.js";
import { pluginManifestRuntime } from "../plugins/plugin-manifest-runtime.js";
import { median, spread, type Bench, type BenchRow } from "./harness.js";

const SIZES = [50, 200, 1000] as const;

/** A plugin with 5 virtual tools and 5 aliases of read_file, all names unique. */
function manifest(i: number): object {
  return {
    name: `bench-${i}`,
    version: "1.0.0",
    virtual_tools: Array.from({ length: 5 }, (_, j) => ({
      name: `p${i}_virtual_${j}`,
      description: `Virtual tool ${j} of plugin ${i}`,
      response_template: `Plugin ${i} says {topic} ({n})`,
      parameters: { type: "object", properties: { topic: { type: "string" }, n: { type: "number" } }, required: ["topic"] },
    })),
    tool_aliases: Array.from({ length: 5 }, (_, j) => ({ name: `p${i}_alias_${j}`, base_tool: "read_file" })),
  };
}

/** Writes a workspace with `n` plugins under `plugins/`; returns its root and the manifest paths. */
function makeWorkspace(base: string, n: number): { root: string; home: string; files: string[] } {
  const root = join(base, `ws-${n}`);
  const home = join(base, `home-${n}`);
  mkdirSync(join(root, ".keel"), { recursive: true });
  mkdirSync(home, { recursive: true });
  const files: string[] = [];
  for (let i = 0; i < n; i++) {
    const dir = join(root, "plugins", `plugin-${String(i).padStart(4, "0")}`);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "plugin.json");
    writeFileSync(file, JSON.stringify(manifest(i), null, 2));
    files.push(file);
  }
  return { root, home, files };
}

/** Discovery + manifest parsing + hook taps + registry build for one fresh host (built-ins applied beforehand). */
async function keelOnce(root: string, home: string, expectTools: number): Promise<number> {
  const host = await Host.create({ cwd: root, env: { KEEL_HOME: home }, config: {} as never, events: { emit() {}, flush() {} } });
  await host.use(builtinTools());
  const started = performance.now();
  await pluginManifestRuntime().apply(host);
  await host.init();
  const ms = performance.now() - started;
  const count = host.registry.list().length + host.registry.listAliases().length;
  if (count < expectTools)
    throw new Error(`bench: expected at least ${expectTools} tools, got ${count}: ${JSON.stringify(host.diagnostics.items.slice(0, 3))}`);
  return ms;
}

/** Discovery and registry build for 50, 200 and 1000 plugins (5 virtual tools + 5 aliases each), against plain JSON.parse of the same files. */
const bench: Bench = async () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "keel-bench-plugins-")));
  const rows: BenchRow[] = [];
  const keelMs = new Map<number, number>();
  const keelMin = new Map<number, number>();
  try {
    for (const n of SIZES) {
      const ws = makeWorkspace(base, n);
      const runs = n >= 1000 ? 7 : n >= 200 ? 11 : 21;
      for (let i = 0; i < (n >= 1000 ? 3 : 10); i++) await keelOnce(ws.root, ws.home, n * 10);
      // keel and the baseline alternate round by round (the order flips every round)
      const times: number[] = [];
      const parsed: number[] = [];
      const parse = () => ws.files.map((f) => JSON.parse(readFileSync(f, "utf8")) as unknown);
      for (let i = 0; i < runs; i++) {
        const sides = [
          async () => times.push(await keelOnce(ws.root, ws.home, n * 10)),
          async () => {
            const t = performance.now();
            parse();
            parsed.push(performance.now() - t);
          },
        ];
        if (i % 2) sides.reverse();
        for (const side of sides) await side();
      }
      const baseline = median(parsed);
      const keel = median(times);
      times.sort((a, b) => a - b);
      keelMs.set(n, keel);
      keelMin.set(n, times[0]!);
      rows.push({
        case: `${n} plugins (${n * 10} tools)`,
        baselineLabel: "readFileSync + JSON.parse",
        baseline,
        keel,
        unit: "ms",
        higherIsBetter: false,
        note: `median of ${runs} interleaved rounds; ${((keel / n) * 1000).toFixed(0)} µs/plugin; spread keel ${spread(times)}, baseline ${spread(parsed)}`,
        ...(n === 50 ? { target: "< 10 ms", met: keel < 10 } : {}),
      });
    }
    // Slopes from the fastest runs: on a shared machine they are far less noisy than medians.
    const slopeSmall = (keelMin.get(200)! - keelMin.get(50)!) / 150;
    const slopeLarge = (keelMin.get(1000)! - keelMin.get(200)!) / 800;
    rows.push({
      case: "per-plugin slope, 200→1000 (fastest runs)",
      baselineLabel: "slope 50→200",
      baseline: slopeSmall * 1000,
      keel: slopeLarge * 1000,
      unit: "µs",
      higherIsBetter: false,
      note: "linear when the two slopes are close (ratio ≈ 1)",
      target: "linear growth (ratio < 2)",
      met: slopeLarge < slopeSmall * 2,
    });
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
  return { title: "Plugin discovery + registry build", rows };
};

export default bench;
