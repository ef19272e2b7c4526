import { beforeEach, describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { closeAfterEach, openTestHost } from "../../helpers/test-host.js";

let ws: TempWorkspace;
let host: Host;
const call = (tool: string, input: unknown) => host.runTool({ tool, input }, { yes: true });
const task = async (id: string) => (await call("task_get", { task_id: id })).data as { task: Record<string, any> };

beforeEach(async () => {
  ws = makeWorkspace();
  host = await openTestHost(ws);
});
closeAfterEach(() => ({ host, ws }));

describe("task runtime", () => {
  it("registers every task tool with runtime source and the right risk", () => {
    const names = [
      "task_list",
      "task_get",
      "task_next",
      "task_create",
      "task_update",
      "task_start",
      "task_complete",
      "task_block",
      "task_cancel",
      "todo_write",
    ];
    for (const name of names) {
      const tool = host.registry.get(name);
      expect(tool, name).toBeDefined();
      expect(tool!.source).toEqual({ kind: "runtime", id: "task" });
      const reads = ["task_list", "task_get", "task_next"].includes(name);
      expect(tool!.risk).toEqual([reads ? "read" : "write"]);
    }
  });

  it("runs the dependency flow: waiting_on, unblocking on completion, then in_progress", async () => {
    const written = await call("todo_write", {
      items: [
        { id: "scan", content: "Scan", status: "pending" },
        { id: "patch", content: "Patch", blocked_by: ["scan"] },
      ],
    });
    expect(written.ok).toBe(true);
    const next = await call("task_next", {});
    expect((next.data as any).tasks.map((t: any) => t.id)).toEqual(["scan"]);
    expect(next.content).toContain("scan");
    expect(next.content).not.toContain("patch");

    const started = await call("task_start", { task_id: "patch" });
    expect(started.ok).toBe(true);
    expect((started.data as any).task.status).toBe("blocked");
    expect((started.data as any).task.reason).toBe("waiting_on:scan");

    const done = await call("task_complete", { task_id: "scan" });
    expect((done.data as any).released).toEqual(["patch"]);
    expect((await task("patch")).task.status).toBe("pending");
    expect((await task("patch")).task.reason).toBeUndefined();

    const again = await call("task_start", { task_id: "patch", owner: "agent_1" });
    expect((again.data as any).task).toMatchObject({ status: "in_progress", owner: "agent_1" });
    expect((await task("scan")).task.blocks).toEqual(["patch"]);
  });

  it("keeps a task blocked while other dependencies remain, listing what is left", async () => {
    await call("task_create", { title: "a", task_id: "a" });
    await call("task_create", { title: "b", task_id: "b" });
    await call("task_create", { title: "c", task_id: "c", blocked_by: ["a", "b"] });
    expect((await call("task_start", { task_id: "c" })).data).toMatchObject({ task: { status: "blocked", reason: "waiting_on:a,b" } });
    await call("task_cancel", { task_id: "a", reason: "not needed" });
    expect((await task("c")).task).toMatchObject({ status: "blocked", reason: "waiting_on:b" });
    expect((await task("a")).task).toMatchObject({ status: "cancelled", reason: "not needed" });
    await call("task_complete", { task_id: "b" });
    expect((await task("c")).task.status).toBe("pending");
    const actionable = await call("task_list", { actionable_only: true });
    expect((actionable.data as any).tasks.map((t: any) => t.id)).toEqual(["c"]);
  });

  it("rejects cycles, duplicate ids, dangling references and unknown statuses with fixing hints", async () => {
    await call("task_create", { title: "a", task_id: "a" });
    await call("task_create", { title: "b", task_id: "b", blocked_by: ["a"] });
    const cycle = await call("task_update", { task_id: "a", blocked_by: ["b"] });
    expect(cycle.ok).toBe(false);
    expect(cycle.content).toMatch(/cycle: a → b → a/i);
    expect(cycle.content).toMatch(/remove one of/);
    const viaBlocks = await call("task_create", { title: "c", task_id: "c", blocked_by: ["b"], blocks: ["a"] });
    expect(viaBlocks.ok).toBe(false);
    expect(viaBlocks.content).toMatch(/cycle/i);

    const dup = await call("task_create", { title: "again", task_id: "a" });
    expect(dup).toMatchObject({ ok: false, code: "precondition_failed" });
    expect(dup.content).toContain('"a" already exists');

    const dangling = await call("task_create", { title: "x", blocked_by: ["nope"] });
    expect(dangling.ok).toBe(false);
    expect(dangling.content).toContain('"nope"');
    expect(dangling.content).toMatch(/Create those tasks first/);

    const status = await call("task_create", { title: "x", status: "almost" });
    expect(status).toMatchObject({ ok: false, code: "schema_invalid" });
    expect(status.content).toContain("status");

    const dupItems = await call("todo_write", {
      items: [
        { id: "q", content: "one" },
        { id: "q", content: "two" },
      ],
    });
    expect(dupItems.ok).toBe(false);
    expect(dupItems.content).toContain('Duplicate id "q"');
    // Nothing of the failed calls was written.
    const list = await call("task_list", {});
    expect((list.data as any).tasks.map((t: any) => t.id)).toEqual(["a", "b"]);
  });

  it("accepts status aliases and normalises them", async () => {
    await call("task_create", { title: "x", task_id: "x", status: "todo" });
    await call("task_create", { title: "y", task_id: "y", status: "done" });
    expect((await task("x")).task.status).toBe("pending");
    expect((await task("y")).task.status).toBe("completed");
    const filtered = await call("task_list", { status: "complete" });
    expect((filtered.data as any).tasks.map((t: any) => t.id)).toEqual(["y"]);
  });

  it("generates task_<n> ids, filters by owner and caps max_tasks", async () => {
    for (const owner of ["ann", "bo", "ann"]) await call("task_create", { title: `t-${owner}`, owner });
    const list = await call("task_list", { owner: "ann" });
    expect((list.data as any).tasks.map((t: any) => t.id)).toEqual(["task_1", "task_3"]);
    const capped = await call("task_list", { max_tasks: 2 });
    expect((capped.data as any).tasks).toHaveLength(2);
    expect((capped.data as any).total).toBe(3);
    expect(capped.content).toContain("2 of 3 tasks");
  });

  it("task_update merges metadata and task_block records the reason", async () => {
    await call("task_create", { title: "x", task_id: "x", metadata: { a: 1, b: 2 } });
    await call("task_update", { task_id: "x", metadata: { b: null, c: 3 }, priority: "high" });
    expect((await task("x")).task).toMatchObject({ metadata: { a: 1, c: 3 }, priority: "high" });
    expect((await task("x")).task.metadata).not.toHaveProperty("b");
    await call("task_create", { title: "dep", task_id: "dep" });
    const blocked = await call("task_block", { task_id: "x", blocked_by: ["dep"] });
    expect((blocked.data as any).task).toMatchObject({ status: "blocked", reason: "waiting_on:dep", blocked_by: ["dep"] });
    await call("task_complete", { task_id: "dep" });
    expect((await task("x")).task.status).toBe("pending");
  });

  it("never overwrites an unparseable tasks.json and names the file", async () => {
    const broken = '{"tasks": [ {"id": "x",  <- half edited by hand';
    ws.write(".keel/state/tasks.json", broken);
    for (const [tool, input] of [
      ["task_create", { title: "new" }],
      ["task_list", {}],
      ["todo_write", { items: [] }],
    ] as const) {
      const obs = await call(tool, input);
      expect(obs.ok, tool).toBe(false);
      expect(obs.code).toBe("execution_failed");
      expect(obs.content).toContain(ws.path(".keel/state/tasks.json"));
      expect(obs.content).toMatch(/left it untouched/);
    }
    expect(ws.read(".keel/state/tasks.json")).toBe(broken);
  });

  it("asks for approval for mutating tools without --yes, and allows reads", async () => {
    const denied = await host.runTool({ tool: "task_create", input: { title: "x" } });
    expect(denied).toMatchObject({ ok: false, code: "approval_required" });
    expect(ws.exists(".keel/state/tasks.json")).toBe(false);
    expect((await host.runTool({ tool: "task_list", input: {} })).ok).toBe(true);
  });
});
