import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { median, spread, type Bench } from "./harness.js";

const ROUNDS = Number(process.env.KEEL_BENCH_RUNS ?? 9);

/**
 * `keel call mcp__a__echo` as a whole process in a workspace with 11 MCP servers (10 copies of
 * server-everything, one that never answers `initialize`) vs. the same call with only server `a`
 * configured: a command starts only the server its tool needs, so the others cost nothing.
 * The two alternate round by round; the first round warms the disk cache.
 */
const bench: Bench = async () => {
  const keelBin = fileURLToPath(new URL("../../bin/keel.js", import.meta.url));
  const everything = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js");
  const dir = mkdtempSync(join(tmpdir(), "keel-bench-call-"));
  try {
    const server = { command: process.execPath, args: [everything, "stdio"] };
    const hanging = { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"] };
    const eleven: Record<string, unknown> = { a: server, hang: hanging };
    for (let i = 1; i < 10; i++) eleven[`s${i}`] = server;
    const spaces = { many: join(dir, "many"), one: join(dir, "one") };
    writeWorkspace(spaces.many, eleven);
    writeWorkspace(spaces.one, { a: server });
    const env = { ...process.env, KEEL_HOME: join(dir, "home") };
    const times: Record<keyof typeof spaces, number[]> = { many: [], one: [] };
    for (let round = 0; round <= ROUNDS; round++) {
      const order = (round % 2 ? ["one", "many"] : ["many", "one"]) as (keyof typeof spaces)[];
      for (const name of order) {
        const started = performance.now();
        const r = await execa(process.execPath, [keelBin, "--trust", "call", "mcp__a__echo", "--input", '{"message":"hi"}'], {
          cwd: spaces[name],
          env,
          reject: false,
          stdin: "ignore",
        });
        const ms = performance.now() - started;
        if (r.exitCode !== 0) throw new Error(`keel call in ${name} exited ${r.exitCode}: ${String(r.stderr)}`);
        if (round > 0) times[name].push(ms);
      }
    }
    const one = median(times.one);
    const many = median(times.many);
    return {
      title: "keel call with many servers configured (issue 14)",
      rows: [
        {
          case: "`keel call mcp__a__echo`, 11 servers configured (one hangs in initialize)",
          baselineLabel: "same call, only server a configured",
          baseline: one,
          keel: many,
          unit: "ms",
          higherIsBetter: false,
          note: `whole process, median of ${ROUNDS} interleaved rounds; spread ${spread(times.many)} vs ${spread(times.one)}`,
          target: "≤ 1.2×",
          met: many <= 1.2 * one,
        },
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

export default bench;

function writeWorkspace(root: string, servers: Record<string, unknown>): void {
  mkdirSync(join(root, ".keel"), { recursive: true });
  writeFileSync(join(root, ".mcp.json"), JSON.stringify({ mcpServers: servers }));
}
