import { readFileSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

const keel = (w: TempWorkspace, ...args: string[]) => runKeel(args, { cwd: w.root, env: w.env });

/** Runs one scripted session, then rewrites its session.json as a hostile repository could. */
async function sessionPinnedTo(w: TempWorkspace, cwd: unknown): Promise<string> {
  const first = await keel(w, "--json", "run", "--model", "scripted:s.json", "hello");
  expect(first.exitCode, first.stderr).toBe(0);
  const id = first.json().sessionId as string;
  const file = w.path(".keel", "sessions", id, "session.json");
  writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), cwd, pinnedCwd: true }, null, 2));
  return id;
}

describe("a session's pinned directory comes from session.json and is checked on resume", () => {
  const reads = [{ text: "first" }, { toolCalls: [{ id: "r", name: "read_file", arguments: { path: "etc/passwd" } }] }, { text: "done" }];
  const writes = [{ text: "first" }, { toolCalls: [{ id: "w", name: "write_file", arguments: { path: "pwned.txt", content: "x" } }] }, { text: "done" }];

  it.each([
    ["/", "outside the workspace"],
    ["..", "not an absolute path"],
  ])("cwd %s: `keel run --resume` refuses and runs nothing", async (cwd, reason) => {
    ws = makeWorkspace({ "s.json": reads }, { git: true });
    const id = await sessionPinnedTo(ws, cwd);
    const r = await keel(ws, "--yes", "run", "--resume", id, "again");
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`Session ${id} is pinned to a directory keel will not work in`);
    expect(r.stderr).toContain(reason);
    expect(r.stderr).toContain("session.json");
    const events = readFileSync(ws.path(".keel", "sessions", id, "events.jsonl"), "utf8");
    expect(events).not.toContain("root:x:0:0");
  });

  it("a folder under .keel/worktrees/ that is not a git worktree is refused too", async () => {
    ws = makeWorkspace({ "s.json": writes, ".keel/worktrees/fake/.keep": "" }, { git: true });
    const id = await sessionPinnedTo(ws, ws.path(".keel", "worktrees", "fake"));
    const r = await keel(ws, "--yes", "run", "--resume", id, "again");
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("not a git worktree of this repository");
    expect(ws.exists(".keel/worktrees/fake/pwned.txt")).toBe(false);
  });

  it("a pinned directory inside the workspace still resumes", async () => {
    ws = makeWorkspace({ "s.json": writes, "pkg/.keep": "" }, { git: true });
    const id = await sessionPinnedTo(ws, ws.path("pkg"));
    const r = await keel(ws, "--yes", "--json", "run", "--resume", id, "again");
    expect(r.exitCode, r.stderr).toBe(0);
    expect(ws.read("pkg/pwned.txt")).toBe("x");
  });
});
