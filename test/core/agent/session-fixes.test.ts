import { execa } from "execa";
import { existsSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { KEEL_BIN, runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const cleanup: TempWorkspace[] = [];
afterAll(() => {
  for (const ws of cleanup) ws.cleanup();
});
function workspace(files: Record<string, string | object>, opts: { git?: boolean } = {}): TempWorkspace {
  const ws = makeWorkspace(files, opts);
  cleanup.push(ws);
  return ws;
}
const call = (name: string, args: object, id?: string) => ({ ...(id ? { id } : {}), name, arguments: args });

describe("agent sessions: worktree, recovery, per-turn options (real CLI)", () => {
  it("a session's tool calls follow worktree_enter; the discard keeps the work, the main checkout is untouched", async () => {
    const ws = workspace({ "a.txt": "a\n" }, { git: true });
    ws.write(".git/info/exclude", "script.json\n");
    ws.write("script.json", {
      turns: [
        { text: "enter", toolCalls: [call("worktree_enter", { name: "sbx" })] },
        { text: "write", toolCalls: [call("write_file", { path: "X.txt", content: "sandboxed\n" })] },
        { text: "where", toolCalls: [call("bash", { command: "pwd" })] },
        { text: "leave", toolCalls: [call("worktree_exit", { action: "discard", force: true })] },
        { text: "done" },
      ],
    });
    const r = await runKeel(["--yes", "run", "--model", "scripted:script.json", "--session", "wt", "--json", "try it"], { cwd: ws.root, env: ws.env });
    expect(r.json()).toMatchObject({ ok: true, reason: "answer", text: "done" });
    expect(ws.exists("X.txt")).toBe(false);
    const shown = (await runKeel(["sessions", "show", "wt", "--json"], { cwd: ws.root, env: ws.env })).json();
    const tools = shown.state.messages.filter((m: { role: string }) => m.role === "tool").map((m: { content: string }) => m.content);
    expect(tools[2]).toContain(ws.path(".keel", "worktrees", "sbx"));
    const refs = ws.git("for-each-ref", "--format=%(refname)", "refs/keel/discarded/").trim().split("\n").filter(Boolean);
    expect(refs).toHaveLength(1);
    expect(ws.git("show", `${refs[0]}:X.txt`)).toBe("sandboxed\n");
  });

  it("resuming a session pinned to a directory that is gone fails clearly (exit 1) instead of failing every tool call", async () => {
    const ws = workspace({ "a.txt": "a\n" }, { git: true });
    ws.write(".git/info/exclude", "script.json\n");
    ws.write("script.json", [{ text: "first" }, { text: "again", toolCalls: [call("bash", { command: "pwd" })] }, { text: "second" }]);
    const r = await runKeel(["--yes", "run", "--worktree", "--model", "scripted:script.json", "--session", "pin", "hello"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode).toBe(0);
    const name = /worktree (run-[a-z0-9]+) kept/.exec(r.stderr)![1]!;
    ws.git("worktree", "remove", "--force", ws.path(".keel", "worktrees", name));
    const again = await runKeel(["--yes", "run", "--resume", "pin", "more"], { cwd: ws.root, env: ws.env });
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain("no longer exists");
  });

  it("an approved call killed mid-run is recovered as outcome unknown, not as its earlier approval_required", async () => {
    const ws = await approvedThenKilled();
    const resumed = await runKeel(["run", "--resume", "ap", "--json"], { cwd: ws.root, env: ws.env });
    expect(resumed.json()).toMatchObject({ ok: true, text: "checked" });
    expect(ws.read("apk.txt")).toBe("X\n");
    const state = (await runKeel(["sessions", "show", "ap", "--json"], { cwd: ws.root, env: ws.env })).json().state;
    const obs = state.messages
      .filter((m: { role: string }) => m.role === "tool")
      .map((m: { content: string }) => m.content)
      .join("\n");
    expect(obs).not.toContain("approval_required");
    expect(obs).toContain("may or may not have run");
  });

  it("approving a session whose process died points to keel run --resume, not to a busy session", async () => {
    const ws = await approvedThenKilled();
    const approve = await runKeel(["sessions", "approve", "ap"], { cwd: ws.root, env: ws.env });
    expect(approve.exitCode).toBe(2);
    expect(approve.stderr).toContain("keel run --resume ap");
    expect(approve.stderr).not.toContain("busy");
  });

  it("sessions list/show derive `interrupted` for a running session without a live writer, rewriting nothing", async () => {
    const ws = await approvedThenKilled();
    const dir = ".keel/sessions/ap";
    const files = () => ["state.json", "status.json", "events.jsonl"].map((f) => (ws.exists(`${dir}/${f}`) ? ws.read(`${dir}/${f}`) : ""));
    const before = files();
    const list = await runKeel(["sessions", "list", "--json"], { cwd: ws.root, env: ws.env });
    expect(list.json().sessions[0]).toMatchObject({ id: "ap", status: "interrupted" });
    expect(list.json().sessions[0].hint).toContain("keel run --resume ap");
    const text = await runKeel(["sessions", "list"], { cwd: ws.root, env: ws.env });
    expect(text.stdout).toContain("interrupted");
    const shown = await runKeel(["sessions", "show", "ap"], { cwd: ws.root, env: ws.env });
    expect(shown.stdout).toContain("interrupted");
    expect(shown.stdout).toContain("keel run --resume ap");
    expect(JSON.parse(ws.read(`${dir}/status.json`)).status).toBe("running");
    expect(files()).toEqual(before);
  });

  it("--max-steps caps only the turn it was given for", async () => {
    const ws = workspace({ "script.json": stepScript });
    const first = await runKeel(["--yes", "run", "--model", "scripted:script.json", "--session", "mx", "--max-steps", "2", "--json", "first"], {
      cwd: ws.root,
      env: ws.env,
    });
    expect(first.exitCode).toBe(1);
    expect(first.json()).toMatchObject({ reason: "max_steps" });
    const second = await runKeel(["--yes", "run", "--resume", "mx", "--json", "second task"], { cwd: ws.root, env: ws.env });
    expect(second.json()).toMatchObject({ ok: true, reason: "answer", text: "finished second task" });
  });

  it("--json on max_steps keeps the model's last text in `text` and keel's message apart", async () => {
    const ws = workspace({ "script.json": stepScript });
    const r = await runKeel(["--yes", "run", "--model", "scripted:script.json", "--max-steps", "2", "--json", "first"], { cwd: ws.root, env: ws.env });
    const j = r.json();
    expect(j).toMatchObject({ reason: "max_steps", text: "step two" });
    expect(j.message).toContain("keel run --resume");
  });

  it("a paused run in --json keeps the model's text, puts the approval hint in `message`, and exits 0", async () => {
    const ws = workspace({ "script.json": [{ text: "I will run it", toolCalls: [call("bash", { command: "true" })] }, { text: "ok" }] });
    const r = await runKeel(["run", "--model", "scripted:script.json", "--session", "ps", "--json", "go"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode).toBe(0);
    expect(r.json()).toMatchObject({ reason: "awaiting_approval", status: "awaiting_approval", text: "I will run it" });
    expect(r.json().message).toContain("keel sessions approve ps");
  });

  it("a paused run inside a command keel runs for a tool (KEEL_CALL) says the approval is the user's, in their own terminal", async () => {
    const ws = workspace({ "script.json": [{ text: "I will run it", toolCalls: [call("bash", { command: "true" })] }, { text: "ok" }] });
    const nested = `"${process.execPath}" "${KEEL_BIN}" run --model scripted:script.json --session nest go; echo "exit=$?"`;
    const outer = await runKeel(["--yes", "--json", "call", "bash", "--input", JSON.stringify({ command: nested })], { cwd: ws.root, env: ws.env });
    const content: string = outer.json().content;
    expect(content).toContain("Session nest is waiting for approval to run bash");
    expect(content).toContain("Deciding it is the user's, not yours");
    expect(content).toContain("in their own terminal");
    expect(content).not.toContain("Approve with"); // old code: "Approve with `keel sessions approve nest`", refused there
    const resume = `"${process.execPath}" "${KEEL_BIN}" run --resume nest more; echo "exit=$?"`;
    const again: string = (
      await runKeel(["--yes", "--json", "call", "bash", "--input", JSON.stringify({ command: resume })], { cwd: ws.root, env: ws.env })
    ).json().content;
    expect(again).toContain("Session nest is waiting for approval of bash. Deciding it is the user's, not yours");
    expect(again).toContain("exit=2");
    // The user's own terminal keeps the usual hint.
    const own = await runKeel(["run", "--model", "scripted:script.json", "--session", "mine", "--json", "go"], { cwd: ws.root, env: ws.env });
    expect(own.json().message).toContain("Approve with `keel sessions approve mine`");
  });

  it("keel send refuses an empty message (exit 2)", async () => {
    const ws = workspace({ "script.json": [{ text: "hi" }] });
    expect((await runKeel(["run", "--model", "scripted:script.json", "--session", "se", "go"], { cwd: ws.root, env: ws.env })).exitCode).toBe(0);
    const empty = await runKeel(["send", "se", ""], { cwd: ws.root, env: ws.env });
    expect(empty.exitCode).toBe(2);
    expect(empty.stderr).toContain("Give the message");
    expect((await runKeel(["send", "se", "   "], { cwd: ws.root, env: ws.env })).exitCode).toBe(2);
    expect(existsSync(ws.path(".keel", "sessions", "se", "queue.json"))).toBe(false);
  });
});

const stepScript = [
  { text: "step one", toolCalls: [call("bash", { command: "true" })] },
  { text: "step two", toolCalls: [call("bash", { command: "true" })] },
  { text: "step three", toolCalls: [call("bash", { command: "true" })] },
  { text: "step four", toolCalls: [call("bash", { command: "true" })] },
  { text: "finished second task" },
];

/** A session paused on an ask'd bash call, approved by a process that is killed (SIGKILL) while the call runs. */
async function approvedThenKilled(): Promise<TempWorkspace> {
  const ws = workspace({
    "script.json": [{ text: "appending", toolCalls: [call("bash", { command: "echo X >> apk.txt; sleep 120" }, "apk")] }, { text: "checked" }],
  });
  const first = await runKeel(["run", "--model", "scripted:script.json", "--session", "ap", "append"], { cwd: ws.root, env: ws.env });
  expect(first.stderr).toContain("waiting for approval");
  const child = execa("node", [KEEL_BIN, "sessions", "approve", "ap"], { cwd: ws.root, env: ws.env, reject: false, stdin: "ignore" });
  while (!ws.exists("apk.txt") && child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
  child.kill("SIGKILL");
  await child;
  expect(ws.read("apk.txt")).toBe("X\n");
  return ws;
}
