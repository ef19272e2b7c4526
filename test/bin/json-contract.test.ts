import { readFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { KEEL_BIN, runKeel, runKeelProcess, startKeelProcess } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";
import { closeTerminalAfterEach, HAS_TMUX, startTerminal, type Terminal } from "../helpers/tmux.js";

/**
 * What a script or CI job relies on (README, Command reference and Exit codes): with `--json`, stdout is one
 * JSON document — an error too, as `{"error": {type, message}}` — and the exit code is the documented one.
 */
let ws: TempWorkspace | undefined;
let term: Terminal | undefined;
closeTerminalAfterEach(() => ({ term, ws }));

describe("--json errors a script reads", () => {
  it("a project config that is not JSON is a plain one-line ManifestError with line and column, no colour codes, also where CI is set", async () => {
    ws = makeWorkspace({ ".keelrc.json": '{\n  "output": {},\n}\n' });
    for (const env of [
      { ...ws.env, CI: "true" },
      { ...ws.env, FORCE_COLOR: "1" },
    ]) {
      const r = await runKeelProcess(["--json", "tools"], { cwd: ws.root, env });
      expect(r.exitCode).toBe(2);
      const { error } = r.json<{ error: { type: string; message: string } }>();
      expect(error.type).toBe("ManifestError");
      expect(error.message).toContain(`JSON Error in ${ws.path(".keelrc.json")}: `);
      expect(error.message).toContain("(line 3, column 1)");
      expect(error.message).not.toMatch(/\u001b|\n/);
      expect(r.stderr).not.toMatch(/\u001b|\\u001b/);
    }
  });
});

describe("JSON files keel reads: an error is one line with line and column, also where Node gives no position", () => {
  it("keel.config.json (stops the command) and .mcp.json (a diagnostic) with a bare word in them", async () => {
    ws = makeWorkspace({ "keel.config.json": '{\n  "permissions": {\n    "deny": bad\n  }\n}\n' });
    const config = await runKeel(["--json", "tools"], { cwd: ws.root, env: ws.env });
    expect(config.exitCode).toBe(2);
    const { error } = config.json<{ error: { message: string } }>();
    expect(error.message).toContain(`JSON Error in ${ws.path("keel.config.json")}: Unexpected token 'b' in JSON (line 3, column 13)`);
    expect(error.message).not.toMatch(/\n/);
    ws.write("keel.config.json", "{}");
    ws.write(".mcp.json", '{"mcpServers": {\n  "notes": nope\n}}');
    const mcp = await runKeel(["--json", "tools"], { cwd: ws.root, env: ws.env });
    expect(mcp.exitCode).toBe(0);
    const [diagnostic] = mcp.json<{ diagnostics: { message: string }[] }>().diagnostics;
    expect(diagnostic!.message).toContain("Unexpected token 'o' in JSON (line 2, column 13)");
    expect(diagnostic!.message).not.toMatch(/\n/);
  });
});

describe("--json output", () => {
  it("--version with --json (before or after it) prints {version}; without, the bare version", async () => {
    ws = makeWorkspace();
    const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
    for (const args of [
      ["--json", "--version"],
      ["--version", "--json"],
      ["-V", "--json"],
    ]) {
      const r = await runKeel(args, { cwd: ws.root, env: ws.env });
      expect(r.exitCode).toBe(0);
      // Old code: the bare version, which is not JSON.
      expect(r.json()).toEqual({ version });
    }
    expect(await runKeel(["--version"], { cwd: ws.root, env: ws.env })).toMatchObject({ exitCode: 0, stdout: version });
  });
});

describe("keel call --input-file", () => {
  it("reads the file it names, relative to the working directory, whatever characters the path holds (#, %, ?)", async () => {
    ws = makeWorkspace({ "a#b/in.json": { path: "x.txt" }, "a#b/50%.json": { path: "y.txt" }, "a#b/q?.json": { path: "z.txt" } });
    const dir = ws.path("a#b");
    // Old code: the path was read as a URL (`#`, `?` cut it short; `%` was "URI malformed"): exit 2, nothing read.
    for (const [file, path] of [
      ["in.json", "x.txt"],
      ["50%.json", "y.txt"],
      ["q?.json", "z.txt"],
      [ws.path("a#b", "in.json"), "x.txt"],
    ]) {
      const r = await runKeel(["--json", "--cwd", dir, "call", "read_file", "--input-file", file!], { cwd: ws.root, env: ws.env });
      expect(r.exitCode, r.stdout).toBe(1);
      // the input was read: read_file looked for the file it names (none exists)
      expect(r.json()).toMatchObject({ ok: false, tool: "read_file", phase: "execute" });
      expect(r.json().content).toContain(path);
    }
  });
});

describe("errors say what to do next", () => {
  it("a workflow whose definition is invalid: running it names the problem that kept it from loading, and `workflow list` fails (exit 1)", async () => {
    ws = makeWorkspace({ ".claw-workflows.json": { workflows: [{ name: "bad", steps: [{ nope: 1 }] }] } });
    const r = await runKeel(["--json", "workflow", "run", "bad"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode).toBe(2);
    const { message } = r.json<{ error: { message: string } }>().error;
    // Old code: `No workflows were found: add .claw-workflows.json …` — with that very file in the workspace.
    expect(message).not.toContain("No workflows were found");
    expect(message).toContain(
      `1 workflow definition problem(s) kept some from loading (first: ${ws.path(".claw-workflows.json")}:workflows[0].steps[0]: A step needs one of`,
    );
    expect(message).toContain("`keel workflow list` shows each");
    // `keel workflow list` fails when a workflow did not load, as `keel plugins` does for a plugin (old code: exit 0).
    const list = await runKeel(["--json", "workflow", "list"], { cwd: ws.root, env: ws.env });
    expect(list.exitCode).toBe(1);
    expect(list.json().workflows).toEqual([]);
    expect(list.json().diagnostics).toContainEqual(expect.objectContaining({ severity: "error", path: "workflows[0].steps[0]" }));
    const text = await runKeel(["workflow", "list"], { cwd: ws.root, env: ws.env });
    expect(text.exitCode).toBe(1);
    expect(text.stdout).toContain("No workflow could be loaded: fix the problems below.");
    expect(text.stdout).not.toContain("No workflows found. Add .claw-workflows.json");
  });
});

/** Whether process `pid` still exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("SIGTERM (a CI job's timeout, kill, a service manager) cancels a command as Ctrl-C does", () => {
  it(
    "keel run --json: the running tool's processes are stopped, the session records `cancelled`, one JSON document, exit 1",
    { timeout: 120_000 },
    async () => {
      ws = makeWorkspace({}, { git: true, under: "/var/tmp" });
      ws.write(
        "model.json",
        JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command: "echo $$ > shell.pid; sleep 600; echo late > late.txt" } }] }, { text: "done" }]),
      );
      const child = startKeelProcess(["--yes", "--json", "run", "--model", "scripted:model.json", "--session", "term", "go"], ws);
      await vi.waitFor(() => expect(ws!.exists("shell.pid") && ws!.read("shell.pid").trim() !== "").toBe(true), { timeout: 60_000, interval: 20 });
      const shell = Number(ws.read("shell.pid").trim());
      child.kill("SIGTERM");
      const r = await child;
      try {
        // Old code: Node's default for SIGTERM — killed at once (exit 143, nothing on stdout), the tool's shell left running
        // to finish its command after keel was gone, and the session left `running` (shown as interrupted).
        expect(r.exitCode, String(r.stderr)).toBe(1);
        expect(JSON.parse(String(r.stdout))).toMatchObject({ ok: false, sessionId: "term", status: "idle", reason: "cancelled" });
        expect(JSON.parse(readFileSync(ws.path(".keel", "sessions", "term", "status.json"), "utf8"))).toMatchObject({ status: "idle", reason: "cancelled" });
        await vi.waitFor(() => expect(alive(shell)).toBe(false), { timeout: 30_000, interval: 50 });
        expect(ws.exists("late.txt")).toBe(false);
      } finally {
        if (alive(shell)) process.kill(shell, "SIGKILL");
      }
    },
  );
});

describe.skipIf(!HAS_TMUX)("SIGTERM and keel chat (tmux)", () => {
  it("at the prompt, SIGTERM ends the chat as leaving does: the session is saved and said so", { timeout: 120_000 }, async () => {
    ws = makeWorkspace({}, { git: true });
    ws.write("model.json", JSON.stringify([{ text: "hello there" }]));
    term = startTerminal([process.execPath, KEEL_BIN, "--model", "scripted:model.json"], { cwd: ws.root, env: ws.env });
    await term.waitFor("/help for commands");
    term.line("hi");
    await term.waitFor("hello there");
    await term.waitFor(/›\s*$/);
    process.kill(term.pid(), "SIGTERM");
    // Old code: killed at once, nothing said. (With SIGTERM only cancelling, the prompt went on waiting for a line.)
    const screen = await term.waitFor(/Session s-\S+ saved; continue it with keel --resume/);
    await vi.waitFor(() => expect(term!.exited()).toBe(true), { timeout: 30_000, interval: 50 });
    expect(screen).not.toContain("Error");
  });
});
