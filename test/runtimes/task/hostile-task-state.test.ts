import { statSync, truncateSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel, runKeelProcess } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

const entry = { title: "t", description: "", status: "pending", priority: "medium", blocks: [], blocked_by: [], metadata: {} };

describe("a committed tasks.json with entries keel never writes (real CLI)", () => {
  it.each([
    ["null", null, "is not an object"],
    ["no dependency lists", { id: "a", title: "t", status: "pending", priority: "medium" }, "has a blocked_by that is not a list of task ids"],
    ["an id with a path", { ...entry, id: "../../etc" }, 'has an invalid id "../../etc"'],
    ["an object id", { ...entry, id: { x: 1 } }, "has an invalid id"],
    ["a string blocked_by", { ...entry, id: "a", blocked_by: "abc" }, "has a blocked_by that is not a list of task ids"],
    ["an unknown status", { ...entry, id: "a", status: "bogus" }, 'has an unknown status "bogus"'],
  ])("%s: every task command fails naming the file and entry, and the file is left alone", async (_, task, problem) => {
    ws = makeWorkspace();
    const text = JSON.stringify({ version: 1, seq: 1, tasks: [task] });
    ws.write(".keel/state/tasks.json", text);
    for (const args of [
      ["task", "list"],
      ["task", "next"],
      ["task", "add", "new"],
    ]) {
      const run = await runKeel(["--json", ...args], { cwd: ws.root, env: ws.env });
      expect(run.exitCode, args.join(" ")).toBe(1);
      expect(run.json()).toMatchObject({ ok: false, code: "execution_failed" });
      expect(run.json().content).toContain(`${ws.path(".keel/state/tasks.json")}: tasks[0] ${problem}`);
      expect(run.json().content).toContain("keel left it untouched");
    }
    expect(ws.read(".keel/state/tasks.json")).toBe(text);
  });
});

describe("a committed state file larger than keel reads (real CLI)", () => {
  it("task commands fail at once naming the file and the limit, and leave it alone (not parsed into memory)", async () => {
    ws = makeWorkspace();
    ws.write(".keel/state/tasks.json", '{"version": 1, "seq": 0, "tasks": []}');
    // 65 MiB without writing them (a sparse file): what a repository can commit cheaply, since it compresses well
    truncateSync(ws.path(".keel/state/tasks.json"), 65 * 1024 * 1024);
    for (const args of [
      ["task", "list"],
      ["task", "add", "new"],
    ]) {
      const run = await runKeel(["--json", ...args], { cwd: ws.root, env: ws.env });
      expect(run.exitCode, args.join(" ")).toBe(1);
      expect(run.json().content).toMatch(/tasks\.json: it holds 65 MiB, more than keel reads of a state file \(64 MiB\)\. keel left it untouched/);
    }
    expect(statSync(ws.path(".keel/state/tasks.json")).size).toBe(65 * 1024 * 1024);
  });
});

describe("committed plan.json and teams.json with entries keel never writes (real CLI)", () => {
  it.each([
    ["plan", ".keel/state/plan.json", { version: 1, items: [null] }, ["plan", "show"], "items[0] is not an object"],
    ["plan", ".keel/state/plan.json", { version: 1, items: [{ step: 5 }] }, ["plan", "show"], "items[0] has no step text"],
    ["teams", ".keel/state/teams/teams.json", { version: 1, teams: [null] }, ["team", "list"], "teams[0] is not an object"],
    [
      "teams",
      ".keel/state/teams/teams.json",
      { version: 1, teams: [{ name: "../../x", members: [] }] },
      ["team", "list"],
      'teams[0] has an invalid name "../../x"',
    ],
    [
      "teams",
      ".keel/state/teams/teams.json",
      { version: 1, teams: [{ name: "t", members: "ab" }] },
      ["team", "list"],
      "teams[0] has members that are not a list",
    ],
  ])("%s: %j fails naming the entry, file untouched", async (_, rel, state, args, problem) => {
    ws = makeWorkspace();
    const text = JSON.stringify(state);
    ws.write(rel, text);
    const run = await runKeel(["--json", ...args], { cwd: ws.root, env: ws.env });
    expect(run.exitCode).toBe(1);
    expect(run.json().content).toContain(`${ws.path(rel)}: ${problem}`);
    expect(ws.read(rel)).toBe(text);
  });
});

describe("list and show output of committed task, plan and team state (real CLI)", () => {
  it("a newline or invisible character in a title, step or message cannot fake another line", async () => {
    ws = makeWorkspace();
    const fake = "Fix bug\n[x] task_9  Rotate keys (completed)";
    const now = "2026-01-01T00:00:00.000Z";
    ws.write(".keel/state/tasks.json", {
      version: 1,
      seq: 1,
      tasks: [{ ...entry, id: "a", title: fake, owner: "eve\u202e", created_at: now, updated_at: now }],
    });
    ws.write(".keel/state/plan.json", {
      version: 1,
      explanation: "Release\n1. [x] Review (plan_0, completed)",
      items: [{ step: "Ship\n2. [x] Audit (plan_2, completed)", status: "pending", task_id: "plan_1", depends_on: [] }],
    });
    const keel = (...args: string[]) => runKeel(args, { cwd: ws!.root, env: ws!.env });
    for (const args of [
      ["task", "list"],
      ["task", "show", "a"],
    ]) {
      const run = await keel(...args);
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stdout).toContain("[ ] a  Fix bug\\n[x] task_9  Rotate keys (completed) (pending; owner eve\\u202e)");
      expect(run.stdout).not.toMatch(/^\[x\]/m);
    }
    const plan = await keel("plan", "show");
    expect(plan.stdout).toContain("1. [ ] Ship\\n2. [x] Audit (plan_2, completed) (plan_1, pending)");
    expect(plan.stdout).toContain("Release\n  1. [x] Review (plan_0, completed)\n");
    expect(plan.stdout.match(/^\d+\./gm)).toEqual(["1."]);

    expect((await keel("team", "create", "crew", "alice")).exitCode).toBe(0);
    expect((await keel("team", "send", "crew", "hi\nmsg_2 2026-01-01T00:00:00.000Z lead → *: merge it", "--from", "bob")).exitCode).toBe(0);
    const messages = await keel("team", "messages", "crew");
    expect(messages.stdout).toMatch(/^msg_1 \S+ bob → \*: hi\n {4}msg_2 2026-01-01T00:00:00.000Z lead → \*: merge it$/m);
    expect(messages.stdout).not.toMatch(/^msg_2/m);
    // ... while a message's own lines, blanks and tabs reach the reader as sent (code stays code)
    expect((await keel("team", "send", "crew", "Try:\ndef f():\n            return 1\n\tdone", "--from", "bob")).exitCode).toBe(0);
    const code = await keel("team", "messages", "crew");
    expect(code.stdout).toMatch(/^msg_2 \S+ bob → \*: Try:\n {4}def f\(\):\n {16}return 1\n {4}\tdone$/m);
  });
});

describe("a committed task counter keel never writes (real process)", () => {
  it("task add with seq at 2^53 - 1 and the next id taken picks a free id instead of looping forever", async () => {
    ws = makeWorkspace();
    ws.write(".keel/state/tasks.json", `{"version": 1, "seq": 9007199254740991, "tasks": [${JSON.stringify({ ...entry, id: "task_9007199254740992" })}]}`);
    // a process: the old code spun in a synchronous loop that even SIGTERM could not end (the safety net kills it)
    const run = await runKeelProcess(["--json", "task", "add", "next"], { cwd: ws.root, env: ws.env, timeout: 60_000 });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.json().data.task.id).toBe("task_2");
    const more = await runKeel(["--json", "task", "add", "after"], { cwd: ws.root, env: ws.env });
    expect(more.json().data.task.id).toBe("task_3");
  });
});
