import { beforeEach, describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { closeAfterEach, openTestHost } from "../../helpers/test-host.js";

let ws: TempWorkspace;
let host: Host;
const call = (tool: string, input: unknown) => host.runTool({ tool, input }, { yes: true });
const tasks = async () => ((await call("task_list", {})).data as { tasks: Record<string, any>[] }).tasks;
const twoSteps = { items: [{ step: "Write the parser" }, { step: "Test the parser", depends_on: [1] }], explanation: "Parser work" };

beforeEach(async () => {
  ws = makeWorkspace();
  host = await openTestHost(ws);
});
closeAfterEach(() => ({ host, ws }));

describe("plan runtime", () => {
  it("syncs two steps into tasks with blocked_by/blocks and keeps a hand-made task through update and clear", async () => {
    const hand = await call("task_create", { title: "Hand-made", task_id: "hand", description: "mine", owner: "me" });
    expect(hand.ok).toBe(true);
    const before = JSON.stringify((await tasks()).find((t) => t.id === "hand"));

    const updated = await call("update_plan", twoSteps);
    expect(updated.ok).toBe(true);
    expect(updated.content).toContain("1. [ ] Write the parser (plan_1");
    expect((updated.data as any).sync.created).toEqual(["plan_1", "plan_2"]);
    let all = await tasks();
    expect(all.map((t) => t.id)).toEqual(["hand", "plan_1", "plan_2"]);
    expect(all.find((t) => t.id === "plan_2")).toMatchObject({
      title: "Test the parser",
      blocked_by: ["plan_1"],
      metadata: { plan_owned: true, plan_step: 2 },
    });
    expect(all.find((t) => t.id === "plan_1")!.blocks).toEqual(["plan_2"]);

    // A second update with one step removes the plan's dropped task, not the hand-made one.
    const shrunk = await call("update_plan", { items: [{ step: "Only step", status: "in_progress" }] });
    expect((shrunk.data as any).sync).toMatchObject({ updated: ["plan_1"], removed: ["plan_2"] });
    all = await tasks();
    expect(all.map((t) => t.id)).toEqual(["hand", "plan_1"]);
    expect(all.find((t) => t.id === "plan_1")!.status).toBe("in_progress");

    const cleared = await call("plan_clear", {});
    expect(cleared.ok).toBe(true);
    expect((cleared.data as any).sync.removed).toEqual(["plan_1"]);
    all = await tasks();
    expect(all.map((t) => t.id)).toEqual(["hand"]);
    expect(JSON.stringify(all[0])).toBe(before);
    expect((await call("plan_get", {})).content).toBe("No plan.");
  });

  it("refuses to take over a hand-made task id and leaves everything unchanged", async () => {
    await call("task_create", { title: "Hand-made", task_id: "plan_1" });
    const obs = await call("update_plan", twoSteps);
    expect(obs).toMatchObject({ ok: false, code: "precondition_failed" });
    expect(obs.content).toContain('Task "plan_1" already exists and was not created by the plan');
    expect((await tasks()).map((t) => t.title)).toEqual(["Hand-made"]);
    expect((await call("plan_get", {})).content).toBe("No plan.");
  });

  it("refuses to delete a plan task a hand-made task depends on", async () => {
    await call("update_plan", twoSteps);
    await call("task_create", { title: "after", task_id: "after", blocked_by: ["plan_2"] });
    const obs = await call("plan_clear", {});
    expect(obs.ok).toBe(false);
    expect(obs.content).toContain('Task "after" (not created by the plan) depends on plan task "plan_2"');
    expect((await tasks()).map((t) => t.id)).toEqual(["plan_1", "plan_2", "after"]);
  });

  it("shows live task status in plan_get and honours sync_tasks: false", async () => {
    await call("update_plan", {
      ...twoSteps,
      items: [
        { step: "A", task_id: "a" },
        { step: "B", depends_on: ["a"] },
      ],
    });
    await call("task_complete", { task_id: "a" });
    const plan = await call("plan_get", {});
    expect((plan.data as any).items[0]).toMatchObject({ task_id: "a", status: "pending", task_status: "completed" });
    expect(plan.content).toContain("[x] A (a, completed)");

    await call("plan_clear", { sync_tasks: false });
    expect((await tasks()).map((t) => t.id)).toEqual(["a", "plan_2"]);
    const unsynced = await call("update_plan", { items: [{ step: "C" }], sync_tasks: false });
    expect((unsynced.data as any).sync).toBeNull();
    expect((await tasks()).map((t) => t.id)).toEqual(["a", "plan_2"]);
  });

  it("rejects dangling depends_on, cycles and unknown statuses", async () => {
    const dangling = await call("update_plan", { items: [{ step: "A", depends_on: ["Z"] }] });
    expect(dangling.ok).toBe(false);
    expect(dangling.content).toMatch(/matches no step of this plan: use a step number/);
    const cycle = await call("update_plan", {
      items: [
        { step: "A", depends_on: [2] },
        { step: "B", depends_on: [1] },
      ],
    });
    expect(cycle.ok).toBe(false);
    expect(cycle.content).toMatch(/cycle/i);
    const status = await call("update_plan", { items: [{ step: "A", status: "later" }] });
    expect(status).toMatchObject({ ok: false, code: "schema_invalid" });
    expect(await tasks()).toEqual([]);
  });
});
