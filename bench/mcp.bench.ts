import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { JsonlEventSink, MemoryEventSink } from "../core/events.js";
import { Host } from "../core/host.js";
import { mcpRuntime } from "../runtimes/mcp/index.js";
import { medianMs, throughput, type Bench, type BenchRow } from "./harness.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const KEEL = join(ROOT, "bin", "keel.js");
const nm = (p: string) => join(ROOT, "node_modules", p);
const EVERYTHING = nm("@modelcontextprotocol/server-everything/dist/index.js");
const FILESYSTEM = nm("@modelcontextprotocol/server-filesystem/dist/index.js");
const MEMORY = nm("@modelcontextprotocol/server-memory/dist/index.js");
const DURATION_MS = Number(process.env.KEEL_BENCH_MS ?? 4000);
const everything = { command: process.execPath, args: [EVERYTHING, "stdio"] };

/** A temp workspace with `.mcp.json`; returns its root. */
function workspace(base: string, name: string, servers: Record<string, unknown>): string {
  const root = join(base, name);
  mkdirSync(join(root, ".keel"), { recursive: true });
  writeFileSync(join(root, ".mcp.json"), JSON.stringify({ mcpServers: servers }));
  return root;
}

async function rawClient(): Promise<Client> {
  const client = new Client({ name: "bench", version: "0" });
  await client.connect(new StdioClientTransport({ ...everything, stderr: "pipe" }));
  await client.listTools();
  return client;
}

/** Calls/s of `call`, with `inFlight` loops running at once. */
async function rate(ms: number, inFlight: number, call: () => Promise<unknown>): Promise<number> {
  if (inFlight === 1) return throughput(ms, call, 50);
  const per = await Promise.all(Array.from({ length: inFlight }, () => throughput(ms, call, 20)));
  return per.reduce((a, b) => a + b, 0);
}

/**
 * MCP runtime vs. the raw SDK, side by side against server-everything over stdio:
 * (a) `echo` calls/s through `host.runTool` (full pipeline; events in memory, then written to
 * `events.jsonl`) vs. `Client.callTool`,
 * sequential and 8 in flight, interleaved in rounds; (b) connecting 5 servers in parallel (keel)
 * vs. one after another (raw SDK); (c) `keel --trust tools --json` wall time with 3 real servers,
 * eager vs. lazy from the tool cache.
 */
const bench: Bench = async () => {
  const base = mkdtempSync(join(tmpdir(), "keel-bench-mcp-"));
  const env = { ...process.env, KEEL_HOME: join(base, "home") };
  const rows: BenchRow[] = [];
  try {
    // (a) echo throughput, events kept in memory and events written to .keel/events.jsonl
    const root = workspace(base, "echo", { everything });
    const jsonl = new JsonlEventSink(join(root, ".keel", "events.jsonl"));
    const hosts: [string, Host][] = [];
    for (const [label, events] of [["events in memory", new MemoryEventSink()], ["events to events.jsonl", jsonl]] as const) {
      const host = await Host.create({ cwd: root, config: {}, events, trust: true, yes: true, env });
      await host.use(mcpRuntime());
      await host.init();
      hosts.push([label, host]);
    }
    const raw = await rawClient();
    const viaSdk = async () => {
      const r = await raw.callTool({ name: "echo", arguments: { message: "hi" } });
      if ((r.content as { text: string }[])[0]!.text !== "Echo: hi") throw new Error("raw echo failed");
    };
    for (const [label, host] of hosts) {
      const viaKeel = async () => {
        const obs = await host.runTool({ tool: "mcp__everything__echo", input: { message: "hi" } });
        if (obs.content !== "Echo: hi") throw new Error(`echo failed: ${obs.content}`);
      };
      for (const inFlight of [1, 8]) {
        const rounds = 10;
        const b: number[] = [];
        const k: number[] = [];
        for (let i = 0; i < rounds; i++) {
          b.push(await rate(DURATION_MS / rounds / 2, inFlight, viaSdk));
          k.push(await rate(DURATION_MS / rounds / 2, inFlight, viaKeel));
        }
        const baseline = median(b);
        const keel = median(k);
        rows.push({
          case: `echo, ${inFlight === 1 ? "sequential" : "8 in flight"}, ${label}`, baselineLabel: "raw SDK Client.callTool", baseline, keel, unit: "calls/s", higherIsBetter: true,
          note: `overhead ${(1e6 / keel - 1e6 / baseline).toFixed(0)} µs/call`, target: "≥ 0.9 × raw", met: keel >= 0.9 * baseline,
        });
      }
    }
    await raw.close();
    for (const [, host] of hosts) await host.close();
    jsonl.close();

    // (b) connect 5 servers
    const five = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`e${i}`, everything]));
    const root5 = workspace(base, "five", five);
    const seq: number[] = [];
    const par: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      const clients: Client[] = [];
      for (let j = 0; j < 5; j++) clients.push(await rawClient());
      seq.push(performance.now() - t0);
      await Promise.all(clients.map((c) => c.close()));
      const h = await Host.create({ cwd: root5, config: {}, trust: true, env });
      await h.use(mcpRuntime());
      const t1 = performance.now();
      await h.init();
      par.push(performance.now() - t1);
      if (h.registry.list().filter((t) => t.source.kind === "mcp").length < 50) throw new Error("not all 5 servers connected");
      await h.close();
    }
    rows.push({ case: "connect + list tools of 5 servers", baselineLabel: "raw SDK, one after another", baseline: median(seq), keel: median(par), unit: "ms", higherIsBetter: false, note: "keel starts them in parallel" });

    // (c) keel tools --json with 3 real servers
    const three = (lazy: boolean) => ({
      everything: { ...everything, lazy },
      fs: { command: process.execPath, args: [FILESYSTEM, base], lazy },
      memory: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: join(base, "memory.jsonl") }, lazy },
    });
    const eagerRoot = workspace(base, "eager", three(false));
    const lazyRoot = workspace(base, "lazy", three(true));
    const tools = (cwd: string) => async () => {
      const r = await execa(process.execPath, [KEEL, "--trust", "--json", "tools"], { cwd, env, reject: false });
      if (r.exitCode !== 0 || JSON.parse(r.stdout).tools.filter((t: { name: string }) => t.name.startsWith("mcp__")).length < 20) throw new Error(`keel tools failed (exit ${r.exitCode}): ${r.stderr} ${r.stdout.slice(0, 500)}`);
    };
    await tools(lazyRoot)(); // fills the cache
    const eager = await medianMs(5, tools(eagerRoot));
    const lazy = await medianMs(5, tools(lazyRoot));
    rows.push({ case: "`keel --trust tools --json`, 3 real servers", baselineLabel: "eager (servers started)", baseline: eager, keel: lazy, unit: "ms", higherIsBetter: false, note: "keel = lazy: tools from the cache, no server started" });
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
  return { title: "MCP runtime vs. the raw MCP SDK (server-everything over stdio)", rows };
};

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export default bench;
