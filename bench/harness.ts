/** One row of a side-by-side benchmark: keel vs. a baseline measured in the same run. */
export interface BenchRow {
  case: string;
  /** What the baseline is (e.g. "fs.readFile", "raw SDK Client"). */
  baselineLabel: string;
  baseline: number;
  keel: number;
  /** Unit of both numbers, e.g. "calls/s", "ms". */
  unit: string;
  /** True when bigger numbers are better (throughput); false for times. */
  higherIsBetter: boolean;
  /** Extra figure worth reporting, e.g. "overhead 12 µs/call". */
  note?: string;
  /** The target the issue sets, in words, and whether it was met. */
  target?: string;
  met?: boolean;
}

/** A benchmark file's result. */
export interface BenchReport {
  title: string;
  rows: BenchRow[];
}

/** A benchmark module: `bench/<name>.bench.ts` with a default export of this type. */
export type Bench = () => Promise<BenchReport>;

/** keel relative to the baseline, as a ratio where > 1 means keel is slower/less (times) or faster/more (throughput). */
export function ratio(row: BenchRow): number {
  return row.baseline === 0 ? NaN : row.keel / row.baseline;
}

/** The median of `values` (which it sorts). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The range of `values` as text, e.g. "1.20–1.45". */
export function spread(values: number[]): string {
  const fmt = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(2));
  return `${fmt(Math.min(...values))}–${fmt(Math.max(...values))}`;
}

/** Runs `fn` `n` times and returns the median wall time in milliseconds. */
export async function medianMs(n: number, fn: () => Promise<unknown> | unknown): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/** Calls per second of `fn` over about `ms` milliseconds (after a warm-up). */
export async function throughput(ms: number, fn: () => Promise<unknown>, warmup = 200): Promise<number> {
  for (let i = 0; i < warmup; i++) await fn();
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < ms) {
    await fn();
    n++;
  }
  return (n * 1000) / (performance.now() - start);
}

/** Formats reports as Markdown tables (used for bench/README.md), each under an optional stamp line. */
export function toMarkdown(reports: BenchReport[], stamp?: string): string {
  const out: string[] = [];
  for (const r of reports) {
    out.push(`### ${r.title}`, "");
    if (stamp) out.push(stamp, "");
    out.push("| case | baseline | baseline value | keel | ratio keel/baseline | note | target |", "|---|---|---|---|---|---|---|");
    for (const row of r.rows) {
      const fmt = (v: number) => (v >= 100 ? v.toFixed(0) : v.toFixed(2));
      const target = row.target ? `${row.target} ${row.met === undefined ? "" : row.met ? "✓" : "✗"}` : "";
      out.push(
        `| ${row.case} | ${row.baselineLabel} | ${fmt(row.baseline)} ${row.unit} | ${fmt(row.keel)} ${row.unit} | ${ratio(row).toFixed(2)} | ${row.note ?? ""} | ${target} |`,
      );
    }
    out.push("");
  }
  return out.join("\n");
}
