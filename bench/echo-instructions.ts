import { execFile } from "node:child_process";
import { closeSync, fchmodSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Host } from "../core/host.js";
import { MCP_SERVICE, mcpRuntime } from "../runtimes/mcp/index.js";

/**
 * keel's own cost per MCP `echo` call counted in CPU instructions rather than wall time (which a busy
 * machine decides). `node dist/bench/echo-instructions.js [N] [ROUNDS]` runs one process under
 * `valgrind --tool=callgrind` that warms up, then makes, round after round, N calls of each side —
 * `keel` (`host.runTool` with a caller signal and events to `.keel/events.jsonl`: `mcp.bench.ts`'s
 * "with a caller signal" rows, how the CLI, agent and workflows call) and `raw` (`Client.callTool` on
 * keel's own connection) — sequentially and with 8 in flight. Before each batch it calls `fchmod` on
 * a scratch file and callgrind dumps its counters there (`--dump-before=fchmod`), so each batch's
 * instructions are counted on their own (start-up and warm-up fall in the first dump). It prints the
 * median instructions per call of each side over the rounds, with and without the instructions of
 * V8's optimizing compilers. Only the client process is counted: the server is a child valgrind does
 * not trace. Under valgrind the client runs ~50× slower and the server does not, so what keel batches
 * by time (events written within 5 ms, a call id's millisecond prefix) is shared by fewer calls than
 * at full speed. `--one SIDE INFLIGHT N [PROFILE]` makes N calls of one side after the warm-up,
 * without valgrind, and writes a CPU profile of those calls alone to PROFILE (`Profiler` of
 * `node:inspector`, as `node --cpu-prof` writes it). Not part of `npm run bench`; needs `valgrind`.
 */
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const EVERYTHING = join(ROOT, "node_modules", "@modelcontextprotocol/server-everything/dist/index.js");
const WARMUP = Number(process.env.KEEL_ECHO_WARMUP ?? 5000);

type Side = "keel" | "raw";
type Call = () => Promise<void>;

/** A host with server-everything connected, the two sides' calls, and a way to end it. */
async function setUp(): Promise<{ calls: Record<Side, Call>; eventsFile: string; close(): Promise<void> }> {
  const base = mkdtempSync(join(tmpdir(), "keel-echo-instr-"));
  const root = join(base, "ws");
  mkdirSync(join(root, ".keel"), { recursive: true });
  writeFileSync(
    join(root, ".mcp.json"),
    JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"], startupTimeoutMs: 600_000 } } }),
  );
  const host = await Host.create({ cwd: root, config: {}, trust: true, yes: true, env: { ...process.env, KEEL_HOME: join(base, "home") } });
  await host.use(mcpRuntime());
  await host.init();
  const client = await host.service(MCP_SERVICE)!.find("everything")!.ready();
  const signal = new AbortController().signal;
  const calls: Record<Side, Call> = {
    raw: async () => {
      const r = await client.callTool({ name: "echo", arguments: { message: "hi" } });
      if ((r.content as { text: string }[])[0]!.text !== "Echo: hi") throw new Error("raw echo failed");
    },
    keel: async () => {
      const obs = await host.runTool({ tool: "mcp__everything__echo", input: { message: "hi" } }, { signal });
      if (obs.content !== "Echo: hi") throw new Error(`echo failed: ${obs.content}`);
    },
  };
  const close = async () => {
    await host.close();
    rmSync(base, { recursive: true, force: true });
  };
  return { calls, eventsFile: join(root, ".keel", "events.jsonl"), close };
}

/** `n` calls of `call`, `inFlight` of them at a time. */
async function loops(call: Call, inFlight: number, n: number): Promise<void> {
  let left = n;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (left > 0) {
        left--;
        await call();
      }
    }),
  );
}

/** The process valgrind counts: warm-up, then the batches, each after a mark; prints the batches' labels as JSON. */
async function segments(n: number, rounds: number): Promise<void> {
  const { calls, eventsFile, close } = await setUp();
  const markFd = openSync(join(tmpdir(), `keel-echo-mark-${process.pid}`), "w");
  const labels: string[] = [];
  try {
    for (const side of ["raw", "keel"] as const) await loops(calls[side], 1, WARMUP);
    for (const side of ["raw", "keel"] as const) await loops(calls[side], 8, WARMUP);
    const before = statSync(eventsFile).size;
    let keelCalls = 0;
    for (const inFlight of [1, 8]) {
      for (let round = 0; round < rounds; round++) {
        for (const side of round % 2 ? (["keel", "raw"] as const) : (["raw", "keel"] as const)) {
          fchmodSync(markFd, 0o600); // callgrind dumps here: the counters up to now, then zero
          labels.push(`${side} ${inFlight}`);
          await loops(calls[side], inFlight, n);
          if (side === "keel") keelCalls += n;
        }
      }
    }
    fchmodSync(markFd, 0o600);
    process.stdout.write(`${JSON.stringify({ labels, eventBytesPerCall: (statSync(eventsFile).size - before) / keelCalls })}\n`);
  } finally {
    closeSync(markFd);
    rmSync(join(tmpdir(), `keel-echo-mark-${process.pid}`), { force: true });
    await close();
  }
}

/** A batch's instructions: all of them, and those of V8's optimizing compilers (JIT work that fades as the code warms up). */
interface Count {
  all: number;
  jit: number;
}

/**
 * Sums one callgrind dump's self cost (Ir) per function name: each `fn=` starts a function, its cost
 * lines follow, and the line after a `calls=` line is a call's inclusive cost (not counted).
 */
function countDump(text: string): Count {
  const names = new Map<string, string>();
  let jitFn = false;
  let afterCalls = false;
  const count: Count = { all: 0, jit: 0 };
  for (const line of text.split("\n")) {
    const named = /^(c?fn)=\((\d+)\)(?: (.*))?$/.exec(line);
    if (named) {
      if (named[3] !== undefined) names.set(named[2]!, named[3]);
      if (named[1] === "fn") jitFn = /compiler::|maglev::|baseline::|Compiler|OptimizingCompileDispatcher/.test(names.get(named[2]!) ?? "");
      continue;
    }
    if (line.startsWith("calls=")) {
      afterCalls = true;
      continue;
    }
    if (!/^[0-9+\-*]/.test(line)) continue;
    if (afterCalls) {
      afterCalls = false;
      continue;
    }
    const ir = Number(line.slice(line.lastIndexOf(" ") + 1));
    count.all += ir;
    if (jitFn) count.jit += ir;
  }
  return count;
}

/** Runs `segments` under callgrind; resolves with each batch's label and instruction counts. */
function underCallgrind(n: number, rounds: number): Promise<{ counts: [string, Count][]; eventBytesPerCall: number }> {
  const dir = mkdtempSync(join(tmpdir(), "keel-echo-cg-"));
  const args = [
    "--tool=callgrind",
    `--callgrind-out-file=${join(dir, "cg")}`,
    "--dump-before=fchmod",
    "--smc-check=all-non-file",
    process.execPath,
    fileURLToPath(import.meta.url),
    "--segments",
    String(n),
    String(rounds),
  ];
  return new Promise((resolve, reject) => {
    execFile("valgrind", args, { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      try {
        if (error) throw new Error(`valgrind failed: ${error.message}\n${stderr.slice(-2000)}`);
        const { labels, eventBytesPerCall } = JSON.parse(stdout.trim().split("\n").pop()!) as { labels: string[]; eventBytesPerCall: number };
        // Dump k holds what ran up to the k-th `fchmod`; the last labels.length dumps end the batches (counted
        // from the end: a state file written with `fchmod` during start-up adds a dump before the first batch).
        const counts = new Map<number, Count>();
        for (const f of readdirSync(dir)) {
          const k = /^cg\.(\d+)$/.exec(f);
          if (k) counts.set(Number(k[1]), countDump(readFileSync(join(dir, f), "utf8")));
        }
        const first = Math.max(...counts.keys()) - labels.length + 1;
        resolve({ counts: labels.map((label, i) => [label, counts.get(first + i)!]), eventBytesPerCall });
      } catch (e) {
        reject(e as Error);
      } finally {
        if (process.env.KEEL_ECHO_KEEP === undefined) rmSync(dir, { recursive: true, force: true });
        else process.stderr.write(`callgrind dumps kept in ${dir}\n`);
      }
    });
  });
}

/** A CPU profile (sampled every 50 µs) of `work` alone, as `node --cpu-prof` writes it. */
async function profiled(work: () => Promise<void>): Promise<object> {
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<Record<string, unknown>>((resolve, reject) => session.post(method, params, (e, r) => (e ? reject(e) : resolve(r as Record<string, unknown>))));
  await post("Profiler.enable");
  await post("Profiler.setSamplingInterval", { interval: 50 });
  await post("Profiler.start");
  await work();
  const { profile } = await post("Profiler.stop");
  session.disconnect();
  return profile as object;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === "--segments") return segments(Number(argv[1]), Number(argv[2]));
  if (argv[0] === "--one") {
    const { calls, close } = await setUp();
    const [side, inFlight, n] = [argv[1] as Side, Number(argv[2]), Number(argv[3])];
    await loops(calls[side], inFlight, WARMUP);
    const profile = argv[4];
    if (profile === undefined) await loops(calls[side], inFlight, n);
    else writeFileSync(profile, JSON.stringify(await profiled(() => loops(calls[side], inFlight, n))));
    return close();
  }
  const n = Number(argv[0] ?? 500);
  const rounds = Number(argv[1] ?? 3);
  const { counts, eventBytesPerCall } = await underCallgrind(n, rounds);
  for (const inFlight of [1, 8]) {
    const per = (side: Side, what: (c: Count) => number) => counts.filter(([l]) => l === `${side} ${inFlight}`).map(([, c]) => what(c) / n);
    for (const [label, what] of [
      ["all", (c: Count) => c.all],
      ["without JIT compiling", (c: Count) => c.all - c.jit],
    ] as const) {
      const [raw, keel] = [per("raw", what), per("keel", what)];
      const fmt = (xs: number[]) => xs.map((x) => Math.round(x)).join(" ");
      process.stdout.write(
        `${inFlight === 1 ? "sequential " : "8 in flight"}, ${label}: raw ${Math.round(median(raw))} instr/call (${fmt(raw)}), keel ${Math.round(median(keel))} (${fmt(keel)}), keel's own ${Math.round(median(keel) - median(raw))}, keel/raw ${(median(keel) / median(raw)).toFixed(3)}\n`,
      );
    }
  }
  process.stdout.write(`events: ${eventBytesPerCall.toFixed(0)} B per keel call\n`);
}

await main();
