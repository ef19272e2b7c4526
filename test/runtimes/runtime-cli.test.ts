import { afterAll, describe, expect, it } from "vitest";
import { runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

// Runs the built CLI (`npx tsc -p tsconfig.json` first). Each step is a separate process,
// so everything asserted here went through the state files on disk.
// The four flows use separate workspaces and run concurrently to keep the suite quick.
const workspaces: TempWorkspace[] = [];
afterAll(() => workspaces.forEach((w) => w.cleanup()));

function setup(files: Record<string, string | object> = {}) {
  const ws = makeWorkspace(files);
  workspaces.push(ws);
  return { ws, keel: (...args: string[]) => runKeel(args, { cwd: ws.root, env: ws.env }) };
}

describe.concurrent("keel task / plan / team / config CLI", () => {
  it("runs the dependency flow across processes, with --json and exit codes", async () => {
    const { keel } = setup();
    expect((await keel("task", "add", "Scan the repo", "--id", "scan")).exitCode).toBe(0);
    const patch = await keel("task", "add", "Patch it", "--id", "patch", "--blocked-by", "scan", "--json");
    expect(patch.exitCode).toBe(0);
    expect(patch.json()).toMatchObject({ ok: true, tool: "task_create", data: { task: { id: "patch", blocked_by: ["scan"] } } });

    const next = await keel("task", "next", "--json");
    expect(next.json().data.tasks.map((t: { id: string }) => t.id)).toEqual(["scan"]);
    const start = await keel("task", "start", "patch");
    expect(start.exitCode).toBe(0);
    expect(start.stdout).toContain("blocked: waiting on scan");
    const done = await keel("task", "done", "scan");
    expect(done.stdout).toContain("Unblocked (now pending): patch");
    const again = await keel("--json", "task", "start", "patch", "--owner", "agent_1");
    expect(again.json().data.task).toMatchObject({ status: "in_progress", owner: "agent_1" });

    const dup = await keel("task", "add", "again", "--id", "scan");
    expect(dup.exitCode).toBe(1);
    expect(dup.stdout).toContain('"scan" already exists');
    // An option value outside its choices is a usage error (exit 2) that lists the allowed values.
    const bad = await keel("task", "add", "x", "--status", "someday", "--json");
    expect(bad.exitCode).toBe(2);
    // With --json, as every error: only the error object on stdout.
    expect(bad.json().error.message).toContain("Allowed choices are pending, todo, open, in_progress, completed, done, complete, blocked, cancelled");
    expect(bad.stderr).toBe("");
  });

  it("explicit ask rules still ask, deny rules set with `keel config set` apply on the next command", async () => {
    const { ws, keel } = setup({ "keel.config.json": { permissions: { ask: ["task_create"] } } });
    const asked = await keel("task", "add", "x", "--json");
    expect(asked.exitCode).toBe(1);
    expect(asked.json()).toMatchObject({ code: "approval_required" });
    expect((await keel("--yes", "task", "add", "x")).exitCode).toBe(0);

    const set = await keel("config", "set", "permissions.deny", '["task_*"]');
    expect(set.exitCode).toBe(0);
    expect(JSON.parse(ws.read(".keel/config.local.json"))).toEqual({ permissions: { deny: ["task_*"] } });
    const denied = await keel("--yes", "call", "task_create", "--input", '{"title":"y"}', "--json");
    expect(denied.exitCode).toBe(1);
    expect(denied.json()).toMatchObject({ ok: false, code: "permission_denied", phase: "permission" });

    // A value the config schema rejects is a usage error of the command (exit 2), told in one line on stderr.
    const wrong = await keel("config", "set", "permissions.deny", '"bash"');
    expect(wrong.exitCode).toBe(2);
    expect(wrong.stderr).toMatch(/expected array/);
    const get = await keel("config", "get", "permissions", "--json");
    expect(get.json().data).toMatchObject({ value: { ask: ["task_create"], deny: ["task_*"] }, sources: ["project", "local"] });
  });

  it("keeps team messages across processes and refuses duplicates and non-members", async () => {
    const { keel } = setup();
    expect((await keel("team", "create", "reviewers", "alice", "bob")).exitCode).toBe(0);
    const dup = await keel("team", "create", "REVIEWERS");
    expect(dup.exitCode).toBe(1);
    expect(dup.stdout).toContain("unique ignoring case");
    expect((await keel("team", "send", "reviewers", "please review #7", "--to", "alice", "--from", "lead")).exitCode).toBe(0);
    const stranger = await keel("team", "send", "reviewers", "psst", "--to", "mallory");
    expect(stranger.exitCode).toBe(1);
    const read = await keel("team", "messages", "reviewers", "--for", "alice", "--json");
    expect(read.json().data.messages).toEqual([expect.objectContaining({ id: "msg_1", sender: "lead", recipient: "alice", message: "please review #7" })]);
    const later = await keel("team", "messages", "reviewers", "--for", "alice", "--since", "msg_1");
    expect(later.stdout, later.stderr).toContain("No messages in reviewers for alice after msg_1");
  });

  it("shows and clears the plan, keeping hand-made tasks", async () => {
    const { keel } = setup();
    await keel("task", "add", "by hand", "--id", "hand");
    const plan = await keel("--yes", "call", "update_plan", "--input", JSON.stringify({ items: [{ step: "one" }, { step: "two", depends_on: [1] }] }));
    expect(plan.exitCode).toBe(0);
    const show = await keel("plan");
    expect(show.stdout).toContain("2. [ ] two (plan_2, pending) ← plan_1");
    const cleared = await keel("plan", "clear", "--json");
    expect(cleared.json().data.sync.removed).toEqual(["plan_1", "plan_2"]);
    const list = await keel("task", "list", "--json");
    expect(list.json().data.tasks.map((t: { id: string }) => t.id)).toEqual(["hand"]);
  });

  it("numeric options reject non-integers as usage errors (exit 2) naming the option", async () => {
    const { keel } = setup();
    const cases: [string[], string][] = [
      [["task", "list", "--max", "abc"], "--max"],
      [["task", "next", "--max", "1.5"], "--max"],
      [["team", "messages", "crew", "--limit", "0"], "--limit"],
      [["workflow", "runs", "--limit", "ten"], "--limit"],
      [["config", "list", "--limit", "-3"], "--limit"],
    ];
    const runs = await Promise.all(cases.map(([args]) => keel(...args)));
    for (const [i, r] of runs.entries()) {
      expect(r.exitCode, `${cases[i]![0].join(" ")}: ${r.stdout}${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(`${cases[i]![1]} needs a positive integer`);
      expect(r.stdout + r.stderr).not.toContain("max_tasks");
    }
    await keel("task", "add", "one", "--id", "t1");
    await keel("task", "add", "two", "--id", "t2");
    const ok = await keel("task", "list", "--max", "1", "--json");
    expect(ok.exitCode).toBe(0);
    expect(ok.json().data.tasks).toHaveLength(1);
  });
});
