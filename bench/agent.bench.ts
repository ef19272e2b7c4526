import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHost } from "../lib/create-host.js";
import type { Host } from "../core/host.js";
import { SessionSeals } from "../core/session/session-seal.js";
import { loadSessionState } from "../core/session/session-store.js";
import { resolveWorkspace } from "../core/workspace.js";
import { median, spread, type Bench, type BenchRow } from "./harness.js";
import { startLocalModel, type LocalModel } from "./local-model.js";

const SIZES = [10, 100, 1000];
/** Steps measured at each size. */
const WINDOW = 20;
const LONG = Number(process.env.KEEL_BENCH_AGENT_STEPS ?? 500);
const ROUNDS = Number(process.env.KEEL_BENCH_ROUNDS ?? 5);
const TOOL_OUTPUT = "0123456789abcdef".repeat(128); // 2 KB

/** CPU milliseconds (user + system) of this process while `fn` runs. */
async function cpuMs(fn: () => Promise<unknown>): Promise<number> {
  const start = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/**
 * Agent loop cost with the model in another process (latency ≈ 0), so this process's CPU time is
 * the client's: keel's own CPU per loop step at 10 / 100 / 1,000 prior messages (2 KB tool outputs),
 * each as (keel − raw openai client sending the same conversation) per step; a whole 500-step
 * session the same way; and resuming a 1,000-message session against reading and parsing the same
 * bytes. Keel and baseline alternate round by round.
 */
const bench: Bench = async () => {
  const dir = mkdtempSync(join(tmpdir(), "keel-bench-agent-"));
  const model = await startLocalModel("out.txt");
  try {
    const ws = join(dir, "ws");
    mkdirSync(join(ws, ".keel"), { recursive: true });
    writeFileSync(join(ws, "out.txt"), TOOL_OUTPUT);
    const home = join(dir, "home");
    mkdirSync(home);
    // user-level config: a workspace may not choose the model endpoint
    writeFileSync(join(home, "config.json"), JSON.stringify({ model: { name: "bench", baseUrl: model.url, contextWindow: 50_000_000 } }));
    const env = { ...process.env, KEEL_HOME: home };
    const { OpenAI } = await import("openai");
    const client = new OpenAI({ apiKey: "x", baseURL: model.url, maxRetries: 0 });
    const agent = new AgentDriver(ws, env, model);

    // Templates: one session per size, grown from the previous (each step adds 2 messages).
    const templates = new Map<number, string>();
    let grown = 3; // system, prompt, and the final answer of the first turn
    await agent.start("grow", 2);
    for (const size of SIZES) {
      const steps = Math.max(0, Math.ceil((size - grown) / 2));
      if (steps) await agent.resume("grow", steps + 1);
      grown += steps * 2 + 2;
      templates.set(size, snapshotDir(ws, "grow", join(dir, `t${size}`)));
    }

    const perStep = new Map<number, { keel: number[]; raw: number[] }>(SIZES.map((s) => [s, { keel: [], raw: [] }]));
    const long = { keel: [] as number[], raw: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const size of SIZES) {
        const sides = [
          async () => {
            restore(templates.get(size)!, ws, "grow");
            perStep.get(size)!.keel.push((await agent.resumeSteps("grow", WINDOW)) / WINDOW);
          },
          async () => {
            const messages = conversation(size);
            perStep.get(size)!.raw.push((await cpuMs(() => rawSteps(client, model, messages, WINDOW))) / WINDOW);
          },
        ];
        if (round % 2) sides.reverse();
        for (const side of sides) await side();
      }
      if (round < 3) {
        const sides = [
          async () => long.keel.push(await cpuMs(() => agent.start(`long${round}`, LONG))),
          async () => long.raw.push(await cpuMs(() => rawSteps(client, model, conversation(2), LONG))),
        ];
        if (round % 2) sides.reverse();
        for (const side of sides) await side();
      }
    }

    // resume of the 1,000-message session: load (checkpoint + log tail) vs read + JSON.parse of those bytes
    restore(templates.get(1000)!, ws, "grow");
    const stateDir = join(ws, ".keel");
    // As a resume loads it: the checkpoint's MAC and the log it names are checked (see session-file-seal.ts).
    const seals = new SessionSeals(resolveWorkspace(ws, env));
    const loaded = await loadSessionState(stateDir, "grow", seals);
    if (loaded.filesProblem) throw new Error(`the bench session was refused: ${loaded.filesProblem}`);
    const sessionDir = join(stateDir, "sessions", "grow");
    const parseSame = () => {
      JSON.parse(readFileSync(join(sessionDir, "state.json"), "utf8"));
      const tail = readFileSync(join(sessionDir, "events.jsonl")).subarray(loaded.snapshotOffset).toString("utf8");
      for (const line of tail.split("\n")) if (line) JSON.parse(line);
    };
    const resume = { keel: [] as number[], raw: [] as number[] };
    for (let round = 0; round < ROUNDS * 4; round++) {
      const t0 = performance.now();
      await loadSessionState(stateDir, "grow", seals);
      const t1 = performance.now();
      parseSame();
      resume.keel.push(t1 - t0);
      resume.raw.push(performance.now() - t1);
    }
    const before = readFileSync(join(sessionDir, "state.json"), "utf8");
    await agent.resume("grow", 1);
    const rewritten = readFileSync(join(sessionDir, "state.json"), "utf8") !== before;

    const own = (size: number) => median(perStep.get(size)!.keel) - median(perStep.get(size)!.raw);
    const growth = (side: "keel" | "raw") => median(perStep.get(1000)![side]) / median(perStep.get(10)![side]);
    const rows: BenchRow[] = SIZES.map((size) => {
      const { keel, raw } = perStep.get(size)!;
      return {
        case: `loop step at ${size} prior messages (2 KB tool outputs), CPU`,
        baselineLabel: "raw openai client, same conversation",
        baseline: median(raw),
        keel: median(keel),
        unit: "ms/step",
        higherIsBetter: false,
        note:
          `keel's own ${own(size).toFixed(2)} ms/step; spread keel ${spread(keel)}, raw ${spread(raw)} (${ROUNDS} interleaved rounds of ${WINDOW} steps)` +
          (size === 1000 ? `; per step at 1,000 vs 10 messages: keel ×${growth("keel").toFixed(1)}, raw ×${growth("raw").toFixed(1)}` : ""),
        ...(size === 1000 ? { target: "own ≤ 6 ms and ≤ 1.5× own at 10", met: own(1000) <= 6 && own(1000) <= 1.5 * Math.max(own(10), 0.5) } : {}),
      };
    });
    rows.push({
      case: `${LONG}-step session, total CPU`,
      baselineLabel: "raw openai client, same conversation",
      baseline: median(long.raw),
      keel: median(long.keel),
      unit: "ms",
      higherIsBetter: false,
      note: `keel's own ${((median(long.keel) - median(long.raw)) / 1000).toFixed(2)} s; spread keel ${spread(long.keel)}, raw ${spread(long.raw)} (3 interleaved rounds)`,
      target: "own ≤ 3 s",
      met: median(long.keel) - median(long.raw) <= 3000,
    });
    rows.push({
      case: `resume (load) of the 1,000-message session`,
      baselineLabel: "read + JSON.parse of the same bytes",
      baseline: median(resume.raw),
      keel: median(resume.keel),
      unit: "ms",
      higherIsBetter: false,
      note: `checkpoint ${(loaded.snapshotBytes / 1024).toFixed(0)} KiB + log tail ${((loaded.logSize - loaded.snapshotOffset) / 1024).toFixed(0)} KiB; spread keel ${spread(resume.keel)}; state.json rewritten by a resumed turn: ${rewritten ? "yes" : "no"}`,
      target: "≤ 2× and no file rewritten",
      met: median(resume.keel) <= 2 * median(resume.raw) && !rewritten,
    });
    await agent.close();
    return { title: "Agent loop and sessions (issue 14)", rows };
  } finally {
    await model.close();
    rmSync(dir, { recursive: true, force: true });
  }
};

export default bench;

/** Runs sessions of the bench workspace in one host (its start-up is not part of a step's cost). */
class AgentDriver {
  private host?: Host;
  /** CPU usage when the last resumed session fired `onResume`. */
  private resumedAt?: NodeJS.CpuUsage;

  constructor(
    private readonly ws: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly model: LocalModel,
  ) {}

  private async runtime() {
    if (!this.host) {
      this.host = await createHost({ cwd: this.ws, env: this.env });
      this.host.hooks.onResume.tapPromise("bench", async (ctx) => ((this.resumedAt = process.cpuUsage()), ctx));
    }
    return this.host.service("agent-runtime")!;
  }

  async start(id: string, calls: number): Promise<void> {
    await this.model.reset(calls);
    const out = await (await this.runtime()).start({ prompt: "bench", sessionId: id, yes: true, tools: ["read_file"], maxSteps: calls + 1 });
    if (out.usage.modelCalls !== calls) throw new Error(`expected ${calls} model calls, got ${out.usage.modelCalls}: ${out.text}`);
  }

  /**
   * Resumes `id` for `calls` model calls and returns the CPU milliseconds from the `onResume` hook
   * (the session is loaded; loading is measured on its own) to the end of the turn.
   */
  async resumeSteps(id: string, calls: number): Promise<number> {
    const runtime = await this.runtime();
    this.resumedAt = undefined;
    await this.model.reset(calls);
    const out = await runtime.resume(id, { prompt: "more", yes: true, tools: ["read_file"], maxSteps: calls + 1 });
    if (out.reason !== "answer" || !this.resumedAt) throw new Error(`resume failed: ${out.reason} ${out.text}`);
    const used = process.cpuUsage(this.resumedAt);
    return (used.user + used.system) / 1000;
  }

  async resume(id: string, calls: number): Promise<void> {
    await this.model.reset(calls);
    const out = await (await this.runtime()).resume(id, { prompt: "more", yes: true, tools: ["read_file"], maxSteps: calls + 1 });
    if (out.reason !== "answer") throw new Error(`resume failed: ${out.reason} ${out.text}`);
  }

  async close(): Promise<void> {
    await this.host?.close();
  }
}

type Message = { role: "system" | "user" | "assistant" | "tool"; content: string; tool_call_id?: string; tool_calls?: unknown[] };

/** A conversation of about `n` messages shaped like the agent's: a tool call and its 2 KB result per step. */
function conversation(n: number): Message[] {
  const out: Message[] = [
    { role: "system", content: "You are keel." },
    { role: "user", content: "bench" },
  ];
  for (let i = 0; out.length < n; i++) out.push(...step(i));
  return out;
}

function step(i: number): Message[] {
  const id = `call_${i}`;
  return [
    { role: "assistant", content: "", tool_calls: [{ id, type: "function", function: { name: "read_file", arguments: '{"path":"out.txt"}' } }] },
    { role: "tool", tool_call_id: id, content: TOOL_OUTPUT },
  ];
}

/** `steps` streamed requests through the raw client, the conversation growing as the agent's does. */
async function rawSteps(client: import("openai").OpenAI, model: LocalModel, messages: Message[], steps: number): Promise<void> {
  await model.reset(steps);
  for (let i = 0; i < steps; i++) {
    const stream = await client.chat.completions.create({ model: "bench", messages: messages as never, stream: true });
    for await (const _ of stream) void _;
    messages.push(...step(10_000 + i));
  }
}

/** Copies the session directory `id` of `ws` to `to`; returns `to`. */
function snapshotDir(ws: string, id: string, to: string): string {
  cpSync(join(ws, ".keel", "sessions", id), to, { recursive: true });
  return to;
}

/** Puts a saved copy back as session `id` of `ws`. */
function restore(from: string, ws: string, id: string): void {
  const target = join(ws, ".keel", "sessions", id);
  rmSync(target, { recursive: true, force: true });
  cpSync(from, target, { recursive: true });
}
