import { execa } from "execa";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

// Children run the built code (dist/), like the real CLI: `npx tsc -p tsconfig.json` first.
const distApp = fileURLToPath(new URL("../../dist/lib/create-host.js", import.meta.url));
const distStore = fileURLToPath(new URL("../../dist/runtimes/task/task-store.js", import.meta.url));
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

describe("task state under concurrency and crashes", () => {
  it("two processes doing 200 task_create each end with exactly 400 tasks and a valid file", async () => {
    expect(existsSync(distApp), "run `npx tsc -p tsconfig.json` first").toBe(true);
    ws = makeWorkspace();
    const run = (label: string) => execa("node", [fixture("create-tasks.mjs"), distApp, ws.root, label, "200"], { env: ws.env, timeout: 110_000 });
    const [a, b] = await Promise.all([run("A"), run("B")]);
    expect(JSON.parse(a.stdout)).toEqual({ ok: 200, failed: [] });
    expect(JSON.parse(b.stdout)).toEqual({ ok: 200, failed: [] });
    const state = JSON.parse(ws.read(".keel/state/tasks.json"));
    expect(state.tasks).toHaveLength(400);
    expect(new Set(state.tasks.map((t: { id: string }) => t.id)).size).toBe(400);
    expect(state.tasks.filter((t: { title: string }) => t.title.startsWith("A ")).length).toBe(200);
    expect(state.seq).toBe(400);
  });

  it("kill -9 during writes leaves the old or the new file, never a truncated one", async () => {
    expect(existsSync(distStore), "run `npx tsc -p tsconfig.json` first").toBe(true);
    ws = makeWorkspace();
    const file = ws.path(".keel/state/tasks.json");
    const now = new Date().toISOString();
    const prefill = Array.from({ length: 400 }, (_, i) => ({
      id: `pre_${i}`,
      title: `pre ${i}`,
      description: "y".repeat(2000),
      status: "pending",
      priority: "medium",
      blocks: [],
      blocked_by: [],
      metadata: {},
      created_at: now,
      updated_at: now,
    }));
    ws.write(".keel/state/tasks.json", { version: 1, seq: 0, tasks: prefill });
    let previous = 400;
    for (const delay of [15, 40, 75, 110]) {
      const child = execa("node", [fixture("write-loop.mjs"), distStore, file], { env: ws.env, reject: false });
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes("ready") && resolve());
        child.once("exit", () => reject(new Error("writer exited early")));
      });
      await new Promise((r) => setTimeout(r, delay));
      child.kill("SIGKILL");
      const result = await child;
      expect(result.signal).toBe("SIGKILL");
      const text = readFileSync(file, "utf8");
      const state = JSON.parse(text); // throws on a torn file
      expect(text.endsWith("}\n")).toBe(true);
      expect(state.tasks.length).toBeGreaterThanOrEqual(previous + 6);
      expect(state.tasks.slice(0, 400).map((t: { id: string }) => t.id)).toEqual(prefill.map((t) => t.id));
      previous = state.tasks.length;
      // The killed writer's lock would be taken over as stale after 10 s; skip the wait.
      rmSync(`${file}.lock`, { recursive: true, force: true });
    }
  });

  it("writes through a real temp file + rename: a bystander reading in a loop never sees a partial file", async () => {
    ws = makeWorkspace();
    const file = ws.path(".keel/state/tasks.json");
    ws.write(".keel/state/tasks.json", { version: 1, seq: 0, tasks: [] });
    const child = execa("node", [fixture("write-loop.mjs"), distStore, file], { env: ws.env, reject: false });
    await new Promise<void>((resolve) => child.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes("ready") && resolve()));
    // Read while the writer keeps writing: at least 200 reads, spanning at least 20 more writes.
    let reads = 0;
    let seen = 0;
    let first = -1;
    while (reads < 200 || seen < first + 20) {
      const text = readFileSync(file, "utf8");
      let tasks: number;
      expect(() => (tasks = JSON.parse(text).tasks.length)).not.toThrow();
      if (first < 0) first = tasks!;
      seen = Math.max(seen, tasks!);
      reads++;
      await new Promise((r) => setImmediate(r));
    }
    child.kill("SIGKILL");
    await child;
    expect(seen).toBeGreaterThan(5);
  });
});
