import { execFileSync } from "node:child_process";
import { copyFileSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

/** A git repo with a scripted model and an `outside` folder next to it (never inside the workspace). */
function hostileRepo(): { ws: TempWorkspace; outside: string } {
  const w = makeWorkspace(
    {
      "a.txt": "hello\n",
      "blob.bin": "\u0000\u0001binary",
      "script.json": [{ text: "reading", toolCalls: [{ name: "read_file", arguments: { path: "a.txt" } }] }, { text: "done" }],
    },
    { git: true },
  );
  const outside = join(w.root, "..", "outside");
  mkdirSync(outside);
  return { ws: w, outside };
}

/** Every file and folder under `dir`, relative, sorted. */
const everything = (dir: string) => (readdirSync(dir, { recursive: true }) as string[]).sort();

describe("keel's own files never follow symlinks planted in the repo (real CLI)", () => {
  it("links planted at .keel/events.jsonl, .keel/.gitignore and .keel/state/tasks.json are replaced, never written through", async () => {
    const repo = hostileRepo();
    ws = repo.ws;
    mkdirSync(ws.path(".keel", "state"), { recursive: true });
    writeFileSync(join(repo.outside, "tasks.json"), '{"keep":"me"}\n');
    symlinkSync(join(repo.outside, "log"), ws.path(".keel", "events.jsonl"));
    symlinkSync(join(repo.outside, "gitignore"), ws.path(".keel", ".gitignore"));
    symlinkSync(join(repo.outside, "tasks.json"), ws.path(".keel", "state", "tasks.json"));
    const read = await runKeel(["call", "read_file", "--input", JSON.stringify({ path: "a.txt" })], { cwd: ws.root, env: ws.env });
    expect(read.exitCode).toBe(0);
    expect(read.stdout).toBe("hello");
    const add = await runKeel(["task", "add", "write the docs"], { cwd: ws.root, env: ws.env });
    expect(add.exitCode).toBe(0);
    expect(everything(repo.outside)).toEqual(["tasks.json"]);
    expect(readFileSync(join(repo.outside, "tasks.json"), "utf8")).toBe('{"keep":"me"}\n');
    expect(lstatSync(ws.path(".keel", "events.jsonl")).isFile()).toBe(true);
    expect(readFileSync(ws.path(".keel", "events.jsonl"), "utf8")).toContain('"tool":"read_file"');
    expect(lstatSync(ws.path(".keel", "state", "tasks.json")).isFile()).toBe(true);
    expect(ws.read(".keel/state/tasks.json")).toContain("write the docs");
  });

  it(".keel/state linked outside: task add is refused with a clear error; tool calls still work and write nothing outside", async () => {
    const repo = hostileRepo();
    ws = repo.ws;
    mkdirSync(ws.path(".keel"));
    symlinkSync(repo.outside, ws.path(".keel", "state"));
    const add = await runKeel(["task", "add", "write the docs"], { cwd: ws.root, env: ws.env });
    expect(add.exitCode).toBe(1);
    expect(add.stdout + add.stderr).toMatch(/\.keel\/state is a symlink .*Remove the link/);
    const read = await runKeel(["call", "read_file", "--input", JSON.stringify({ path: "a.txt" })], { cwd: ws.root, env: ws.env });
    expect(read.stdout).toBe("hello");
    const write = await runKeel(["--yes", "call", "write_file", "--input", JSON.stringify({ path: "b.txt", content: "b" })], { cwd: ws.root, env: ws.env });
    expect(write.exitCode).toBe(0);
    const run = await runKeel(["run", "--yes", "--model", "scripted:script.json", "read a.txt"], { cwd: ws.root, env: ws.env });
    expect(run.stdout).toContain("done");
    expect(everything(repo.outside)).toEqual([]);
  });

  it(".keel itself linked outside: read_file, task add and run fail with a clear error and write nothing outside", async () => {
    const repo = hostileRepo();
    ws = repo.ws;
    symlinkSync(repo.outside, ws.path(".keel"));
    const read = await runKeel(["call", "read_file", "--input", JSON.stringify({ path: "a.txt" })], { cwd: ws.root, env: ws.env });
    expect(read.exitCode).toBe(1);
    expect(read.stderr).toMatch(/\.keel is a symlink .*never writes through a link/);
    const add = await runKeel(["task", "add", "write the docs"], { cwd: ws.root, env: ws.env });
    expect(add.exitCode).toBe(1);
    const write = await runKeel(["--yes", "call", "write_file", "--input", JSON.stringify({ path: "b.txt", content: "b" })], { cwd: ws.root, env: ws.env });
    expect(write.exitCode).toBe(1);
    const run = await runKeel(["run", "--yes", "--model", "scripted:script.json", "read a.txt"], { cwd: ws.root, env: ws.env });
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toMatch(/\.keel is a symlink/);
    expect(everything(repo.outside)).toEqual([]);
  });

  it("a session folder or the artifacts folder linked outside: run and artifacts refuse, nothing is written outside", async () => {
    const repo = hostileRepo();
    ws = repo.ws;
    mkdirSync(ws.path(".keel", "sessions"), { recursive: true });
    symlinkSync(repo.outside, ws.path(".keel", "sessions", "s1"));
    const run = await runKeel(["run", "--yes", "--model", "scripted:script.json", "--session", "s1", "read a.txt"], { cwd: ws.root, env: ws.env });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/sessions\/s1 is a symlink/);
    symlinkSync(repo.outside, ws.path(".keel", "artifacts"));
    const blob = await runKeel(["--json", "call", "read_file", "--input", JSON.stringify({ path: "blob.bin" })], { cwd: ws.root, env: ws.env });
    expect(blob.json()).toMatchObject({ ok: false, code: "execution_failed", content: expect.stringMatching(/artifacts is a symlink/) });
    const fresh = await runKeel(["run", "--yes", "--model", "scripted:script.json", "--session", "s2", "read a.txt"], { cwd: ws.root, env: ws.env });
    expect(fresh.exitCode).toBe(0);
    expect(fresh.stdout).toContain("done");
    expect(everything(repo.outside)).toEqual([]);
  });

  it("state files linked to another file of the user's or to /dev/zero, or planted as a FIFO, are never read as keel's state", async () => {
    const repo = hostileRepo();
    ws = repo.ws;
    // A real tasks.json of another workspace, made by keel, sits outside; the repository links to it.
    const other = makeWorkspace();
    try {
      expect((await runKeel(["task", "add", "SECRET plan of another project"], { cwd: other.root, env: other.env })).exitCode).toBe(0);
      copyFileSync(other.path(".keel", "state", "tasks.json"), join(repo.outside, "tasks.json"));
    } finally {
      other.cleanup();
    }
    mkdirSync(ws.path(".keel", "state", "mcp"), { recursive: true });
    symlinkSync(join(repo.outside, "tasks.json"), ws.path(".keel", "state", "tasks.json"));
    symlinkSync("/dev/zero", ws.path(".keel", "state", "plan.json"));
    // Read naively, a FIFO blocks forever and /dev/zero fills memory: these commands would never answer.
    execFileSync("mkfifo", [ws.path(".keel", "state", "mcp", "tool-cache.json")]);
    ws.write(".mcp.json", { mcpServers: { gone: { command: process.execPath, args: ["-e", "process.exit(3)"], lazy: true } } });

    const tasks = await runKeel(["--json", "task", "list"], { cwd: ws.root, env: ws.env });
    expect(tasks.exitCode).toBe(0);
    expect(tasks.stdout).not.toContain("SECRET");
    const plan = await runKeel(["--json", "plan"], { cwd: ws.root, env: ws.env });
    expect(plan.exitCode).toBe(0);
    const tools = await runKeel(["--trust", "--json", "tools"], { cwd: ws.root, env: ws.env });
    expect(tools.exitCode).toBe(0);
    expect(tools.json<{ tools: { name: string }[] }>().tools.some((t) => t.name === "read_file")).toBe(true);
    // The link is replaced by keel's own file on the next write, and the file linked to is untouched.
    expect((await runKeel(["task", "add", "our task"], { cwd: ws.root, env: ws.env })).exitCode).toBe(0);
    expect(lstatSync(ws.path(".keel", "state", "tasks.json")).isFile()).toBe(true);
    expect(ws.read(".keel/state/tasks.json")).not.toContain("SECRET");
    expect(readFileSync(join(repo.outside, "tasks.json"), "utf8")).toContain("SECRET");
  });

  it("a committed session whose log links to another project's session log does not replay that conversation", async () => {
    const repo = hostileRepo();
    ws = repo.ws;
    const other = makeWorkspace({ "script.json": [{ text: "SECRET answer of the other project" }] });
    try {
      const run = await runKeel(["run", "--model", "scripted:script.json", "--session", "s1", "tell me"], { cwd: other.root, env: other.env });
      expect(run.stdout).toContain("SECRET");
      // The repository commits a session of its own: session.json and a checkpoint replaying the log from its start…
      const dir = ws.path(".keel", "sessions", "s1");
      mkdirSync(dir, { recursive: true });
      copyFileSync(other.path(".keel", "sessions", "s1", "session.json"), join(dir, "session.json"));
      const state = JSON.parse(other.read(".keel/sessions/s1/state.json")) as Record<string, unknown>;
      writeFileSync(join(dir, "state.json"), JSON.stringify({ ...state, messages: [], lastAnswer: undefined, logOffset: 0 }));
      // …and a log that is a link to the other project's.
      symlinkSync(other.path(".keel", "sessions", "s1", "events.jsonl"), join(dir, "events.jsonl"));
      const show = await runKeel(["--json", "sessions", "show", "s1"], { cwd: ws.root, env: ws.env });
      expect(show.exitCode).toBe(0);
      expect(show.stdout).not.toContain("SECRET");
      const events = await runKeel(["sessions", "events", "s1"], { cwd: ws.root, env: ws.env });
      expect(events.stdout).not.toContain("SECRET");
      const follow = await runKeel(["sessions", "events", "s1", "--follow"], { cwd: ws.root, env: ws.env });
      expect(follow.exitCode).toBe(0);
      expect(follow.stdout).not.toContain("SECRET");
    } finally {
      other.cleanup();
    }
  });

  it("a lock path planted as a file or a link does not hold keel's state locked: it is removed and the write goes through", async () => {
    const repo = hostileRepo();
    ws = repo.ws;
    writeFileSync(join(repo.outside, "lock"), "keep\n");
    ws.write(".keel/state/tasks.json.lock", "planted\n");
    mkdirSync(ws.path(".keel/state/teams"), { recursive: true });
    symlinkSync(join(repo.outside, "lock"), ws.path(".keel/state/teams/teams.json.lock"));
    const add = await runKeel(["task", "add", "write the docs"], { cwd: ws.root, env: ws.env });
    expect(add.exitCode, add.stdout + add.stderr).toBe(0);
    expect(ws.read(".keel/state/tasks.json")).toContain("write the docs");
    const team = await runKeel(["team", "create", "crew", "alice"], { cwd: ws.root, env: ws.env });
    expect(team.exitCode, team.stdout + team.stderr).toBe(0);
    expect(readFileSync(join(repo.outside, "lock"), "utf8")).toBe("keep\n");
  });

  it("a lock path planted as a folder with files (what git can commit) does not hold keel's state locked; links in it are not followed", async () => {
    const repo = hostileRepo();
    ws = repo.ws;
    mkdirSync(join(repo.outside, "keep"));
    writeFileSync(join(repo.outside, "keep", "file"), "keep\n");
    ws.write(".keel/state/tasks.json.lock/README", "planted\n");
    symlinkSync(join(repo.outside, "keep"), ws.path(".keel/state/tasks.json.lock/link"));
    const add = await runKeel(["task", "add", "write the docs"], { cwd: ws.root, env: ws.env });
    expect(add.exitCode, add.stdout + add.stderr).toBe(0);
    expect(ws.read(".keel/state/tasks.json")).toContain("write the docs");
    expect(readFileSync(join(repo.outside, "keep", "file"), "utf8")).toBe("keep\n");
  }, 60_000);
});
