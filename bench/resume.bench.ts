import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHost } from "../lib/create-host.js";
import { SessionSeals } from "../core/session/session-seal.js";
import { loadSessionState } from "../core/session/session-store.js";
import { median, spread, type Bench } from "./harness.js";
import { startLocalModel } from "./local-model.js";

const EVENTS = Number(process.env.KEEL_BENCH_RESUME_EVENTS ?? 100_000);
const ROUNDS = Number(process.env.KEEL_BENCH_ROUNDS ?? 5) * 4;
/** Tool calls the model asks for in each response (small outputs), so the log grows by events rather than by bytes of history. */
const CALLS_PER_STEP = 25;

/**
 * Resume of a session whose log holds 100,000 events, grown by the real agent loop (a local
 * OpenAI-compatible model in another process asking for 25 `read_file` calls per step): keel's load
 * (checkpoint `state.json` + the log after it) against reading and `JSON.parse`-ing the same bytes,
 * alternating which goes first each round. Also reported: the whole log read and parsed line by line
 * (what a resume that replays everything would cost), and whether a resumed turn rewrote a file.
 */
const bench: Bench = async () => {
  const dir = mkdtempSync(join(tmpdir(), "keel-bench-resume-"));
  const model = await startLocalModel("small.txt");
  try {
    const ws = join(dir, "ws");
    mkdirSync(join(ws, ".keel"), { recursive: true });
    writeFileSync(join(ws, "small.txt"), "a small file\n");
    const home = join(dir, "home");
    mkdirSync(home);
    writeFileSync(join(home, "config.json"), JSON.stringify({ model: { name: "bench", baseUrl: model.url, contextWindow: 50_000_000 } }));
    const host = await createHost({ cwd: ws, env: { ...process.env, KEEL_HOME: home } });
    const runtime = host.service("agent-runtime")!;
    const sessionDir = join(ws, ".keel", "sessions", "big");
    const log = join(sessionDir, "events.jsonl");
    const lines = () => readFileSync(log, "utf8").split("\n").length - 1;
    const opts = { yes: true, tools: ["read_file"], maxSteps: 60 };
    await model.reset(50, CALLS_PER_STEP);
    await runtime.start({ prompt: "bench", sessionId: "big", ...opts });
    for (let n = lines(); n < EVENTS; n = lines()) {
      await model.reset(50, CALLS_PER_STEP);
      const out = await runtime.resume("big", { prompt: "more", ...opts });
      if (out.reason !== "answer") throw new Error(`growing the session failed: ${out.reason} ${out.text}`);
    }
    const events = lines();
    const stateDir = join(ws, ".keel");
    // As a resume loads it: the checkpoint's MAC and the log it names are checked (see session-file-seal.ts).
    const seals = new SessionSeals(host.workspace);
    const loaded = await loadSessionState(stateDir, "big", seals);
    if (loaded.filesProblem) throw new Error(`the bench session was refused: ${loaded.filesProblem}`);
    const sameBytes = () => {
      JSON.parse(readFileSync(join(sessionDir, "state.json"), "utf8"));
      const tail = readFileSync(log).subarray(loaded.snapshotOffset).toString("utf8");
      for (const line of tail.split("\n")) if (line) JSON.parse(line);
    };
    const wholeLog = () => {
      for (const line of readFileSync(log, "utf8").split("\n")) if (line) JSON.parse(line);
    };
    const keel: number[] = [];
    const raw: number[] = [];
    const whole: number[] = [];
    const time = async (into: number[], fn: () => unknown) => {
      const t = performance.now();
      await fn();
      into.push(performance.now() - t);
    };
    for (let round = 0; round < ROUNDS; round++) {
      const sides = [() => time(keel, () => loadSessionState(stateDir, "big", seals)), () => time(raw, sameBytes), () => time(whole, wholeLog)];
      if (round % 2) sides.reverse();
      for (const side of sides) await side();
    }
    const before = { state: readFileSync(join(sessionDir, "state.json"), "utf8"), logSize: statSync(log).size };
    await model.reset(1);
    await runtime.resume("big", { prompt: "one more", ...opts });
    const rewritten = readFileSync(join(sessionDir, "state.json"), "utf8") !== before.state;
    await host.close();
    const tailKiB = (loaded.logSize - loaded.snapshotOffset) / 1024;
    return {
      title: "Resume of a 100k-event session (issue 14)",
      rows: [
        {
          case: `resume (load) of a session with ${events} events (${loaded.state.messages.length} messages)`,
          baselineLabel: "read + JSON.parse of the same bytes",
          baseline: median(raw),
          keel: median(keel),
          unit: "ms",
          higherIsBetter: false,
          note: `log ${(before.logSize / 1024 / 1024).toFixed(1)} MiB; keel reads checkpoint ${(loaded.snapshotBytes / 1024).toFixed(0)} KiB + log tail ${tailKiB.toFixed(0)} KiB; spread keel ${spread(keel)}, baseline ${spread(raw)}; reading and parsing the whole log instead: ${median(whole).toFixed(1)} ms; state.json rewritten by a resumed turn: ${rewritten ? "yes" : "no"} (${ROUNDS} interleaved rounds)`,
          target: "≤ 2× and no file rewritten",
          met: median(keel) <= 2 * median(raw) && !rewritten,
        },
      ],
    };
  } finally {
    await model.close();
    rmSync(dir, { recursive: true, force: true });
  }
};

export default bench;
