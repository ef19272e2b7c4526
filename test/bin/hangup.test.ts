import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { waitDead } from "../helpers/processes.js";
import { keelEnd, keelInHangupTerminal } from "../helpers/hangup-terminal.js";
import { KEEL_BIN, runKeelProcess, startKeelProcess } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";
import { closeTerminalAfterEach, HAS_TMUX, type Terminal } from "../helpers/tmux.js";

/**
 * The terminal goes away (README, "Stopping a command"): an ssh connection drops, a terminal window is closed (SIGHUP,
 * then EIO on the terminal), or `keel … | head` closes its pipe (EPIPE). keel cancels as Ctrl-C does: the tool's
 * processes are stopped, the session records its turn as cancelled and can be resumed, no stack trace.
 */
let ws: TempWorkspace | undefined;
let term: Terminal | undefined;
closeTerminalAfterEach(() => ({ term, ws }));

/** A bash call that writes its shell's pid, then waits on a long sleep (which only a cancel ends). */
const LONG_CALL = { name: "bash", arguments: { command: "echo $$ > shell.pid; sleep 600; echo late > late.txt" } };

/** The session's status.json. */
function status(id: string): unknown {
  return JSON.parse(readFileSync(ws!.path(".keel", "sessions", id, "status.json"), "utf8"));
}

/** The shell's pid, once the bash call wrote it. */
async function shellPid(): Promise<number> {
  await vi.waitFor(() => expect(ws!.exists("shell.pid") && ws!.read("shell.pid").trim() !== "").toBe(true), { timeout: 60_000, interval: 20 });
  return Number(ws!.read("shell.pid").trim());
}

/** Ends what old code left running: the call's shell leads its own process group (its `sleep` too). */
function killGroup(shell: number): void {
  try {
    process.kill(-shell, "SIGKILL");
  } catch {
    // already gone
  }
}

/** The turn was recorded as cancelled, its lock released, and the session goes on with `keel run --resume`. */
async function expectCancelledAndResumable(id: string): Promise<void> {
  expect(status(id)).toMatchObject({ status: "idle", reason: "cancelled" });
  expect(existsSync(ws!.path(".keel", "sessions", id, "writer.lock"))).toBe(false);
  // The call's closing line (batched in the log's commit window) is on disk.
  const events = readFileSync(ws!.path(".keel", "sessions", id, "events.jsonl"), "utf8");
  expect(events).toMatch(/"type":"tool_observation","callId":"[^"]+","tool":"bash"[^\n]*"code":"cancelled"/);
  const list = await runKeelProcess(["--json", "sessions", "list"], { cwd: ws!.root, env: ws!.env });
  expect(list.json<{ sessions: unknown[] }>().sessions).toContainEqual(expect.objectContaining({ id, status: "idle", reason: "cancelled" }));
  const resumed = await runKeelProcess(["--yes", "--json", "run", "--model", "scripted:model.json", "--resume", id], { cwd: ws!.root, env: ws!.env });
  expect(resumed.exitCode, resumed.stderr).toBe(0);
  expect(resumed.json()).toMatchObject({ ok: true, sessionId: id, reason: "answer", text: "done" });
}

describe("SIGHUP (the terminal was closed, the ssh connection dropped) cancels a command as Ctrl-C does", () => {
  it("keel run: the bash call's process is stopped, the turn recorded cancelled and resumable, the lock released, exit 129", { timeout: 180_000 }, async () => {
    ws = makeWorkspace({}, { git: true, under: "/var/tmp" });
    ws.write("model.json", JSON.stringify([{ toolCalls: [LONG_CALL] }, { text: "done" }]));
    const child = startKeelProcess(["--yes", "run", "--model", "scripted:model.json", "--session", "hup", "go"], ws);
    const shell = await shellPid();
    try {
      child.kill("SIGHUP");
      const r = await child;
      // Old code: Node's default for SIGHUP — killed at once (signal SIGHUP, no exit code), the shell left running to
      // finish its command, the session left `running` with its lock (listed as interrupted).
      expect(r.exitCode, `${r.signal ?? ""} ${String(r.stderr)}`).toBe(129);
      expect(String(r.stderr)).toContain("cancelled");
      expect(String(r.stderr)).not.toMatch(/\n\s+at /);
      expect(await waitDead(shell)).toBe(true);
      await expectCancelledAndResumable("hup");
      expect(ws.exists("late.txt")).toBe(false);
    } finally {
      killGroup(shell);
    }
  });
});

describe("a closed pipe (`keel run … | head`)", () => {
  it(
    "stops writing, cancels the turn as Ctrl-C does (no tool left running, session recorded cancelled), no stack trace, exit 1",
    { timeout: 180_000 },
    async () => {
      ws = makeWorkspace({}, { git: true, under: "/var/tmp" });
      // The answer's text goes to stdout before the call starts: the write that finds the reader gone.
      ws.write("model.json", JSON.stringify([{ text: "first words\n", toolCalls: [LONG_CALL] }, { text: "done" }]));
      const child = startKeelProcess(["--yes", "run", "--model", "scripted:model.json", "--session", "pipe", "go"], ws);
      // The reader goes away before keel (still starting up) writes anything.
      child.stdout!.destroy();
      const r = await child;
      const shell = ws.exists("shell.pid") ? Number(ws.read("shell.pid").trim()) : undefined;
      try {
        // Old code: exit 0 at the first write (as if the run had succeeded), the session left `running` with its lock.
        expect(r.exitCode, String(r.stderr)).toBe(1);
        expect(String(r.stderr)).toContain("cancelled");
        expect(String(r.stderr)).not.toMatch(/\n\s+at |EPIPE/);
        if (shell) expect(await waitDead(shell)).toBe(true);
        await expectCancelledAndResumable("pipe");
        expect(ws.exists("late.txt")).toBe(false);
      } finally {
        if (shell) killGroup(shell);
      }
    },
  );
});

/** `keel --yes` chatting with a scripted model in tmux, under a parent that records how it ends (see keelInHangupTerminal). */
async function chatInTerminal(): Promise<Terminal> {
  const t = keelInHangupTerminal(ws!, ["--yes", "--model", "scripted:model.json"]);
  await t.waitFor("/help for commands");
  return t;
}

describe.skipIf(!HAS_TMUX)("keel chat when its terminal goes away (tmux)", () => {
  it("killing the tmux session mid-call: the call's process is stopped, the turn recorded cancelled, exit 129, no crash", { timeout: 180_000 }, async () => {
    ws = makeWorkspace({}, { git: true, under: "/var/tmp" });
    ws.write("model.json", JSON.stringify([{ toolCalls: [LONG_CALL] }, { text: "done" }]));
    term = await chatInTerminal();
    term.line("go");
    const shell = await shellPid();
    try {
      term.close();
      const { exit, stderr } = await keelEnd(ws!);
      // Old code: killed by the hangup at once (signal SIGHUP), the shell left running, the session `running` with its lock.
      // Without letting go of the dead terminal: Node's abort at exit (SIGABRT, "Assertion failed" on stderr).
      expect(exit, stderr).toEqual({ code: 129, signal: null });
      expect(stderr).not.toMatch(/Assertion failed|stack trace|\n\s+at /i);
      expect(await waitDead(shell)).toBe(true);
      const [id] = readdirSync(ws.path(".keel", "sessions"));
      await expectCancelledAndResumable(id!);
    } finally {
      killGroup(shell);
    }
  });

  it("killing the tmux session at the prompt: the chat ends without a crash, the session kept", { timeout: 180_000 }, async () => {
    ws = makeWorkspace({}, { git: true, under: "/var/tmp" });
    ws.write("model.json", JSON.stringify([{ text: "hello there" }]));
    term = await chatInTerminal();
    term.line("hi");
    await term.waitFor("hello there");
    await term.waitFor(/›\s*$/);
    term.close();
    const { exit, stderr } = await keelEnd(ws!);
    // Old code: killed by the hangup (signal SIGHUP). Then, leaving on the terminal's end: readline's `setRawMode EIO`
    // unhandled (exit 1 and a stack trace).
    expect(exit.signal, stderr).toBe(null);
    // 129 when the SIGHUP came first; 0 when the terminal's end did (the chat left as on Ctrl-D).
    expect([0, 129], stderr).toContain(exit.code);
    expect(stderr).not.toMatch(/EIO|Assertion failed|stack trace|\n\s+at /i);
    const [id] = readdirSync(ws.path(".keel", "sessions"));
    expect(status(id!)).toMatchObject({ status: "idle", reason: "answer" });
    expect(existsSync(ws.path(".keel", "sessions", id!, "writer.lock"))).toBe(false);
  });
});

/** A stdio MCP server that records its pid and stays when its stdin ends (only a signal from keel stops it). */
const STUBBORN_SERVER = [
  "const fs = require('fs'); fs.writeFileSync('server.pid', String(process.pid)); setInterval(() => {}, 1000);",
  "const reply = (id, result) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, result }) + '\\n');",
  "let buf = ''; process.stdin.on('data', (d) => { buf += d; let i; while ((i = buf.indexOf('\\n')) >= 0) { const m = JSON.parse(buf.slice(0, i)); buf = buf.slice(i + 1);",
  "  if (m.method === 'initialize') reply(m.id, { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'stubborn', version: '1' } });",
  "  else if (m.method === 'tools/list') reply(m.id, { tools: [] }); else if (m.id !== undefined) reply(m.id, {}); } });",
].join("\n");

/**
 * How `keel ARGS` ends when SIGHUPs keep coming from its first output until it is gone (a hangup's second SIGHUP often
 * comes as keel is leaving): its exit code, or the signal that killed it.
 */
async function endUnderHangups(args: string[]): Promise<{ code: number | null; signal: string | null }> {
  const keel = spawn(process.execPath, [KEEL_BIN, ...args], { stdio: ["ignore", "pipe", "ignore"] });
  keel.stdout.once("data", () => {
    // A shell loop sends them as fast as it can, from the moment keel (its handlers installed) has printed.
    spawn("bash", ["-c", 'while kill -HUP "$0" 2>/dev/null; do :; done', String(keel.pid)], { stdio: "ignore" });
  });
  keel.stdout.resume();
  return new Promise((resolve) => keel.on("exit", (code, signal) => resolve({ code, signal })));
}

describe("a SIGHUP as keel ends", () => {
  it("never kills it: keel leaves with its exit code (0) or 129, however late the SIGHUP comes", { timeout: 180_000 }, async () => {
    // Old code: left Node to end by itself, which closes the signal handlers before its last milliseconds of tear-down:
    // a SIGHUP then killed keel (about one run in three here). Several runs, so the old code fails nearly always.
    for (let run = 0; run < 8; run++) {
      const end = await endUnderHangups(["--version"]);
      expect(end.signal, `run ${run}`).toBe(null);
      expect([0, 129], `run ${run}`).toContain(end.code);
    }
  });
});

describe("keel mcp serve --http and SIGHUP", () => {
  it("stops serving, stops the MCP servers it started, exit 129", { timeout: 180_000 }, async () => {
    ws = makeWorkspace({ ".mcp.json": { mcpServers: { stubborn: { command: process.execPath, args: ["-e", STUBBORN_SERVER] } } } }, { under: "/var/tmp" });
    const child = startKeelProcess(["--trust", "mcp", "serve", "--http"], ws);
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    await vi.waitFor(() => expect(stderr).toMatch(/tools at http/), { timeout: 60_000, interval: 50 });
    const server = Number(ws.read("server.pid"));
    try {
      child.kill("SIGHUP");
      const r = await child;
      // Old code: killed by SIGHUP at once (no exit code), the server it started left running.
      expect(r.exitCode, `${r.signal ?? ""} ${stderr}`).toBe(129);
      expect(await waitDead(server)).toBe(true);
    } finally {
      try {
        process.kill(server, "SIGKILL");
      } catch {
        // gone
      }
    }
  });
});
