import { readFileSync, statSync, writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { SNAPSHOT_MIN_BYTES } from "../../../core/agent/session-recorder.js";
import { readEvents } from "../../../core/events.js";
import type { KeelPlugin } from "../../../core/host.js";
import { startOpenAIServer } from "../../helpers/openai-server.js";
import { runKeel } from "../../helpers/run-cli.js";
import { sessionState, tearLogAfterResponse } from "../../helpers/session-state.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { openTestHost } from "../../helpers/test-host.js";

/** These workspaces' keel.config.json picks a scripted model, which only a trusted workspace may do. */
const TRUSTED = { trust: true };

const spaces: TempWorkspace[] = [];
afterAll(() => spaces.forEach((w) => w.cleanup()));
function ws(files: Record<string, string | object>): TempWorkspace {
  const w = makeWorkspace(files);
  spaces.push(w);
  return w;
}
const readTurn = (i: number) => ({ toolCalls: [{ id: `r${i}`, name: "read_file", arguments: { path: "two-kb.txt" } }] });

describe("append-only sessions", () => {
  it("a 2,000-step session appends the same bytes per step at the end as at the start; checkpoints stay amortized", async () => {
    const STEPS = 2000;
    const w = ws({
      "two-kb.txt": "0123456789abcdef".repeat(128),
      "s.json": [...Array.from({ length: STEPS }, (_, i) => readTurn(i)), { text: "all read" }],
      // a window the conversation fits in: no pruning, so every step only appends
      "keel.config.json": { model: { name: "scripted:s.json", contextWindow: 50_000_000 } },
    });
    // after every save: the size of the log, and the checkpoint's size when it was rewritten (a new inode)
    const saves: { log: number; snapshot?: number }[] = [];
    let inode = 0;
    const probe: KeelPlugin = {
      name: "probe",
      apply(host) {
        host.hooks.afterTurn.tap("probe", () => undefined);
        host.hooks.beforePersist.tapPromise("probe", async (ctx) => {
          const dir = w.path(".keel", "sessions", ctx.sessionId!);
          const st = statSync(`${dir}/state.json`);
          const rewritten = st.ino !== inode;
          inode = st.ino;
          saves.push({ log: statSync(`${dir}/events.jsonl`).size, ...(rewritten ? { snapshot: st.size } : {}) });
        });
      },
    };
    const host = await (await openTestHost(w, TRUSTED)).use(probe);
    let out;
    try {
      out = await host.service("agent-runtime")!.start({ prompt: "read it 2000 times", maxSteps: STEPS + 1 });
    } finally {
      await host.close();
    }
    expect(out.reason).toBe("answer");
    expect(out.usage.toolCalls).toBe(STEPS);
    // per-step log bytes: the same (± a few digits of counters) early and late
    const perSave = (from: number, to: number) => (saves[to]!.log - saves[from]!.log) / (to - from);
    const early = perSave(100, 300);
    const late = perSave(saves.length - 201, saves.length - 1);
    expect(late).toBeLessThan(early * 1.05);
    // every tool output is stored once in the log: ~2 KB per step, not 3 copies
    expect(late).toBeLessThan(2048 * 1.8);
    // checkpoints are rare and their bytes amortized: together no more than twice the log
    const snapshots = saves.flatMap((s) => (s.snapshot ? [s.snapshot] : []));
    const logBytes = saves.at(-1)!.log;
    expect(snapshots.length).toBeLessThan(12);
    expect(snapshots.reduce((a, b) => a + b, 0)).toBeLessThan(2 * logBytes);
    // resume reads the checkpoint and the tail after it: the state is complete
    const state = await sessionState(w.root, out.sessionId);
    expect(state.messages.filter((m) => m.role === "tool")).toHaveLength(STEPS);
    expect(state.usage.toolCalls).toBe(STEPS);
    const snapshot = JSON.parse(readFileSync(w.path(".keel", "sessions", out.sessionId, "state.json"), "utf8"));
    expect(snapshot.version).toBe(2);
    expect(logBytes - snapshot.logOffset).toBeLessThanOrEqual(
      Math.max(SNAPSHOT_MIN_BYTES, statSync(w.path(".keel", "sessions", out.sessionId, "state.json")).size) + 64 * 1024,
    );
  });

  it("resume rewrites no file: it reads the checkpoint and the log and appends", async () => {
    const w = ws({ "a.txt": "x", "s.json": [readTurn(1), { text: "one" }, { text: "two" }], "keel.config.json": { model: "scripted:s.json" } });
    const first = await runKeel(["run", "--session", "r1", "--model", "scripted:s.json", "go"], { cwd: w.root, env: w.env });
    expect(first.exitCode, first.stderr).toBe(0);
    const dir = w.path(".keel", "sessions", "r1");
    const checkpoint = readFileSync(`${dir}/state.json`, "utf8");
    const log = readFileSync(`${dir}/events.jsonl`, "utf8");
    const second = await runKeel(["run", "--resume", "r1", "--model", "scripted:s.json", "again"], { cwd: w.root, env: w.env });
    expect(second.exitCode, second.stderr).toBe(0);
    expect(second.stdout).toContain("two");
    expect(readFileSync(`${dir}/state.json`, "utf8")).toBe(checkpoint);
    expect(readFileSync(`${dir}/events.jsonl`, "utf8").startsWith(log)).toBe(true);
    const state = await sessionState(w.root, "r1");
    expect(state.messages.filter((m) => m.role === "user" && m.kind === "prompt").map((m) => m.content)).toEqual(["go", "again"]);
    expect(state.turn).toBe(2);
  });

  it("a session written in the old format (state.json version 1) is adopted, then migrated on resume; an unknown version is refused untouched", async () => {
    const w = ws({ "s.json": [{ text: "old answer" }, { text: "continued" }], "keel.config.json": { model: "scripted:s.json" } });
    const dir = ".keel/sessions/old1";
    w.write(`${dir}/session.json`, {
      id: "old1",
      createdAt: "2026-01-01T00:00:00.000Z",
      depth: 0,
      model: { kind: "scripted", file: "s.json" },
      cwd: w.root,
      permissions: {},
      plugins: [],
      pluginFingerprint: "",
      servers: [],
      serverFingerprint: "",
      toolMenuHash: "",
    });
    w.write(`${dir}/events.jsonl`, '{"ts":1,"type":"session_start","sessionId":"old1","depth":0,"model":"scripted","cwd":"."}\n');
    w.write(`${dir}/state.json`, {
      version: 1,
      id: "old1",
      status: "idle",
      reason: "answer",
      updatedAt: "2026-01-01T00:00:00.000Z",
      turn: 1,
      turnSteps: 1,
      title: "old",
      messages: [
        { role: "user", kind: "prompt", content: "OLD-PROMPT" },
        { role: "assistant", content: "old answer" },
      ],
      transcript: [{ ts: 1, kind: "message", message: { role: "user", content: "OLD-PROMPT" } }],
      pending: null,
      usage: { modelCalls: 1, toolCalls: 0, inputTokens: 1, outputTokens: 1, lastRequestTokens: 1 },
      pluginState: {},
      discoveredTools: [],
      sessionAllow: [],
      fileBaselines: {},
    });
    // Written before sessions were sealed: keel continues it once the user adopts it (see session-seal.test.ts).
    const unsealed = await runKeel(["run", "--resume", "old1", "--model", "scripted:s.json", "more"], { cwd: w.root, env: w.env });
    expect(unsealed.exitCode).toBe(2);
    expect(unsealed.stderr).toContain("predate session seals");
    const adopt = await runKeel(["sessions", "adopt", "old1"], { cwd: w.root, env: w.env });
    expect(adopt.exitCode, adopt.stderr).toBe(0);
    expect(adopt.stdout).toContain("2 messages (1 as yours)");
    // adopting writes keel's own checkpoint of what it showed: the old format is migrated then
    expect(JSON.parse(w.read(`${dir}/state.json`))).toMatchObject({ version: 2, logOffset: w.read(`${dir}/events.jsonl`).length });
    const r = await runKeel(["run", "--resume", "old1", "--model", "scripted:s.json", "more"], { cwd: w.root, env: w.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain("continued");
    const snapshot = JSON.parse(w.read(`${dir}/state.json`));
    expect(snapshot).toMatchObject({ version: 2 });
    expect(snapshot.transcript).toBeUndefined();
    const state = await sessionState(w.root, "old1");
    expect(state.messages.map((m) => m.content)).toEqual(expect.arrayContaining(["OLD-PROMPT", "old answer", "more", "continued"]));

    const future = JSON.stringify({ version: 7, id: "old1", messages: [] });
    writeFileSync(w.path(dir, "state.json"), future);
    const refused = await runKeel(["run", "--resume", "old1", "--model", "scripted:s.json", "again"], { cwd: w.root, env: w.env });
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain("not a state file this keel understands (version 7)");
    expect(w.read(`${dir}/state.json`)).toBe(future);
  });

  it("a log that ends after the assistant message but before its checkpoint entry: the calls, never started, get 'not run', nothing runs", async () => {
    const server = await startOpenAIServer();
    try {
      const w = ws({});
      w.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
      // a first turn that pauses for approval leaves the assistant message and then the pending entry in the log
      server.push({ text: "", toolCalls: [{ id: "w1", name: "bash", arguments: { command: "echo ran >> ran.txt" } }] });
      const first = await runKeel(["run", "--session", "t1", "go"], { cwd: w.root, env: w.env });
      expect(first.stderr).toContain("keel sessions approve t1");
      // a crash mid-write: the log ends after the response, the next line torn
      const file = w.path(".keel", "sessions", "t1", "events.jsonl");
      tearLogAfterResponse(file);
      server.push({ text: "recovered" });
      const r = await runKeel(["run", "--resume", "t1", "--yes"], { cwd: w.root, env: w.env });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toContain("recovered");
      expect(w.exists("ran.txt")).toBe(false);
      const state = await sessionState(w.root, "t1");
      // no record of its start (it waited for approval): keel knows it never ran
      expect(state.messages.find((m) => m.role === "tool" && m.toolCallId === "w1")!.content).toMatch(
        /^Error \(precondition_failed\): Not run: .*before this call started/,
      );
      expect(readEvents(file).filter((e) => e.type === "recovery")).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});
