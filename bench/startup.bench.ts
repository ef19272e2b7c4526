import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { median, spread, type Bench, type BenchRow } from "./harness.js";
import { removeSnapshotDir } from "../plugins/prune-plugin-snapshots.js";

/** Start-up targets: `keel --help` (issue 2) and `keel tools --json` (issue 14) within this many ms of `node -e 0`. */
const TARGET_MS = 150;
/** Issue 14: `keel plugins --json` with 1,000 plugins at most this many times `keel tools --json` in the same workspace. */
const PLUGINS_TARGET = 1.5;
const RUNS = Number(process.env.KEEL_BENCH_RUNS ?? 15);
const PLUGIN_RUNS = Number(process.env.KEEL_BENCH_PLUGIN_RUNS ?? 7);
const PLUGINS = 1000;
/** Files the code plugin's folder holds besides its entry (each imported by it), for the code-plugin row. */
const CODE_PLUGIN_FILES = 40;

/**
 * A trusted workspace (`keel trust` run once) with one workspace code plugin in `plugins/guard/`:
 * an entry that imports CODE_PLUGIN_FILES modules of ~10 KB and registers one tool. With `main:
 * false` the same folder is declared without its module (the baseline: a manifest plugin).
 */
async function codePluginWorkspace(root: string, main: boolean, keelBin: string, env: NodeJS.ProcessEnv): Promise<void> {
  const folder = join(root, "plugins", "guard");
  mkdirSync(join(folder, "lib"), { recursive: true });
  mkdirSync(join(root, ".keel"), { recursive: true });
  const filler = `// ${"x".repeat(100)}\n`.repeat(100);
  const imports: string[] = [];
  for (let i = 0; i < CODE_PLUGIN_FILES; i++) {
    writeFileSync(join(folder, "lib", `m${i}.mjs`), `${filler}export const v${i} = ${i};\n`);
    imports.push(`import { v${i} } from "./lib/m${i}.mjs";`);
  }
  const sum = Array.from({ length: CODE_PLUGIN_FILES }, (_, i) => `v${i}`).join(" + ");
  writeFileSync(
    join(folder, "index.mjs"),
    `${imports.join("\n")}\nexport function apply(keel) {\n  keel.registerTool({ name: "guard_sum", description: "Sum", inputSchema: { type: "object" }, execute: async () => ({ content: String(${sum}) }) });\n}\n`,
  );
  writeFileSync(join(folder, "plugin.json"), JSON.stringify({ name: "guard", version: "1.0.0", ...(main ? { main: "./index.mjs" } : {}) }));
  const r = await execa(process.execPath, [keelBin, "trust"], { cwd: root, env, reject: false, stdin: "ignore" });
  if (r.exitCode !== 0) throw new Error(`keel trust in ${root} exited ${r.exitCode}: ${String(r.stderr)}`);
  const tools = await execa(process.execPath, [keelBin, "tools", "--json"], { cwd: root, env, stdin: "ignore" });
  if (main !== tools.stdout.includes('"guard_sum"'))
    throw new Error(`the code plugin's tool is ${main ? "missing" : "present"} in ${root}: ${String(tools.stderr)}`);
}

/** A plugin with 10 virtual tools, each with its own parameter schema (names unique across plugins). */
function manifest(i: number): object {
  return {
    name: `bench-${i}`,
    version: "1.0.0",
    virtual_tools: Array.from({ length: 10 }, (_, j) => ({
      name: `p${i}_virtual_${j}`,
      description: `Virtual tool ${j} of plugin ${i}`,
      response_template: `Plugin ${i} says {topic} ({n})`,
      parameters: { type: "object", properties: { topic: { type: "string" }, n: { type: "number" } }, required: ["topic"] },
    })),
  };
}

/**
 * Runs each case once per round, the order alternating every round (so load changes hit every case
 * alike), after one warm-up round; returns each case's wall times in ms.
 */
async function interleaved(cases: Record<string, string[]>, rounds: number, cwd: string, env: NodeJS.ProcessEnv): Promise<Record<string, number[]>> {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
  const entries = Object.entries(cases);
  for (let round = 0; round <= rounds; round++) {
    for (const [name, args] of round % 2 ? [...entries].reverse() : entries) {
      const started = performance.now();
      const r = await execa(process.execPath, args, { cwd, env, reject: false, stdin: "ignore" });
      const ms = performance.now() - started;
      if (r.exitCode !== 0) throw new Error(`node ${args.join(" ")} exited ${r.exitCode}: ${String(r.stderr)}`);
      if (round > 0) times[name]!.push(ms); // the first round warms the disk cache
    }
  }
  return times;
}

/**
 * Whole-process wall time: `keel --help` and `keel tools --json` (a workspace without config,
 * manifests or servers) vs. `node -e 0`; and `keel plugins --json` vs. `keel tools --json` in a
 * workspace with 1,000 plugins of 10 virtual tools each. Medians of interleaved rounds, with spread.
 */
const bench: Bench = async () => {
  // Compiled to dist/bench/; the shim lives in bin/ at the package root.
  const keelBin = fileURLToPath(new URL("../../bin/keel.js", import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), "keel-bench-startup-"));
  try {
    const ws = join(dir, "ws");
    mkdirSync(join(ws, ".keel"), { recursive: true });
    const env: NodeJS.ProcessEnv = { ...process.env, KEEL_HOME: join(dir, "home") };
    delete env.KEEL_TRUST;
    const t = await interleaved({ node: ["-e", "0"], help: [keelBin, "--help"], tools: [keelBin, "tools", "--json"] }, RUNS, ws, env);
    const node = median(t.node!);
    const row = (label: string, values: number[]): BenchRow => {
      const keel = median(values);
      return {
        case: label,
        baselineLabel: "node -e 0",
        baseline: node,
        keel,
        unit: "ms",
        higherIsBetter: false,
        note: `+${(keel - node).toFixed(0)} ms over node (median of ${RUNS} interleaved rounds); spread keel ${spread(values)}, node ${spread(t.node!)} ms`,
        target: `within ${TARGET_MS} ms of node -e 0`,
        met: keel - node <= TARGET_MS,
      };
    };

    const big = join(dir, "plugins-ws");
    mkdirSync(join(big, ".keel"), { recursive: true });
    for (let i = 0; i < PLUGINS; i++) {
      const pluginDir = join(big, "plugins", `plugin-${String(i).padStart(4, "0")}`);
      mkdirSync(pluginDir, { recursive: true });
      writeFileSync(join(pluginDir, "plugin.json"), JSON.stringify(manifest(i), null, 2));
    }
    const p = await interleaved({ tools: [keelBin, "tools", "--json"], plugins: [keelBin, "plugins", "--json"] }, PLUGIN_RUNS, big, env);
    const ratios = p.plugins!.map((ms, i) => ms / p.tools![i]!);
    const plugins = median(p.plugins!);
    const pluginsRow: BenchRow = {
      case: `keel plugins --json, ${PLUGINS} plugins (${PLUGINS * 10} virtual tools)`,
      baselineLabel: "keel tools --json, same workspace",
      baseline: median(p.tools!),
      keel: plugins,
      unit: "ms",
      higherIsBetter: false,
      note: `whole process, median of ${PLUGIN_RUNS} interleaved rounds; per-round ratio ${median(ratios).toFixed(2)} (${spread(ratios)}); spread plugins ${spread(p.plugins!)}, tools ${spread(p.tools!)} ms`,
      target: `≤ ${PLUGINS_TARGET}×`,
      met: plugins / median(p.tools!) <= PLUGINS_TARGET,
    };
    // One trusted workspace code plugin: its folder pinned and checked, its module imported (vs. the same folder as a manifest plugin).
    const withCode = join(dir, "code-ws");
    const withoutCode = join(dir, "manifest-ws");
    await codePluginWorkspace(withCode, true, keelBin, env);
    await codePluginWorkspace(withoutCode, false, keelBin, env);
    const c = await interleaved(
      { code: [keelBin, "--cwd", withCode, "tools", "--json"], manifest: [keelBin, "--cwd", withoutCode, "tools", "--json"] },
      RUNS,
      dir,
      env,
    );
    const codeRatios = c.code!.map((ms, i) => ms - c.manifest![i]!);
    const codeRow: BenchRow = {
      case: `keel tools --json, trusted workspace with a code plugin (entry + ${CODE_PLUGIN_FILES} modules of 10 KB)`,
      baselineLabel: "same folder as a manifest plugin (no main)",
      baseline: median(c.manifest!),
      keel: median(c.code!),
      unit: "ms",
      higherIsBetter: false,
      note: `what a workspace code plugin costs a command (folder pin, import); per-round difference ${median(codeRatios).toFixed(0)} ms (${spread(codeRatios)}); median of ${RUNS} interleaved rounds`,
    };
    return {
      title: "Start-up: wall time of the keel executable vs. a bare node process",
      rows: [row("keel --help", t.help!), row("keel tools --json, no config, manifests or servers", t.tools!), pluginsRow, codeRow],
    };
  } finally {
    // Its $KEEL_HOME holds keel's read-only copy of the code plugin's folder.
    removeSnapshotDir(dir);
  }
};

export default bench;
