import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { keelEnd, keelInHangupTerminal } from "../helpers/hangup-terminal.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";
import { closeTerminalAfterEach, HAS_TMUX, type Terminal } from "../helpers/tmux.js";

/**
 * The terminal goes away while keel asks a question on it (README, "Stopping a command"): the question ends as not
 * answered (no approval, the workspace kept restricted) and the command is cancelled, exit 129 — never a crash. Giving
 * a hung-up terminal back to cooked mode fails (EIO) each time it is tried.
 */
let ws: TempWorkspace | undefined;
let term: Terminal | undefined;
closeTerminalAfterEach(() => ({ term, ws }));

/** A hook only trust runs: `keel chat` offers to trust the workspace before its first prompt. */
const HOOKS = { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: "touch hook-ran" }] }] };

/** `keel` chatting with a scripted model in tmux, under a parent that records how it ends (see keelInHangupTerminal). */
function chatInTerminal(): Terminal {
  return keelInHangupTerminal(ws!, ["--model", "scripted:model.json"]);
}

describe.skipIf(!HAS_TMUX)("the terminal goes away while keel asks a question (tmux)", () => {
  it("the trust offer: the workspace stays untrusted, exit 129, no crash", { timeout: 180_000 }, async () => {
    ws = makeWorkspace({ ".claude/settings.json": { hooks: HOOKS }, "model.json": JSON.stringify([{ text: "hi" }]) }, { git: true, under: "/var/tmp" });
    term = chatInTerminal();
    await term.waitFor("? Trust this workspace?");
    term.close();
    const { exit, stderr } = await keelEnd(ws!);
    // Old code: the question's error listener closed readline, whose giving the terminal back failed again (EIO) and
    // re-entered the listener: "Maximum call stack size exceeded", exit 1 with a stack trace.
    expect(exit, stderr).toEqual({ code: 129, signal: null });
    expect(stderr).not.toMatch(/Maximum call stack|EIO|\n\s+at /);
    expect(existsSync(join(ws.keelHome, "trust.json"))).toBe(false);
  });

  it("an approval prompt: the call does not run, the turn is recorded cancelled, exit 129, no crash", { timeout: 180_000 }, async () => {
    const calls = [{ toolCalls: [{ name: "bash", arguments: { command: "touch ran" } }] }, { text: "done" }];
    ws = makeWorkspace({ "model.json": JSON.stringify(calls) }, { git: true, under: "/var/tmp" });
    term = chatInTerminal();
    await term.waitFor("/help for commands");
    term.line("go");
    await term.waitFor("Allow?");
    term.close();
    const { exit, stderr } = await keelEnd(ws!);
    // Old code: the same endless re-entry (exit 1, a stack trace), the session left `running` with its lock.
    expect(exit, stderr).toEqual({ code: 129, signal: null });
    expect(stderr).not.toMatch(/Maximum call stack|EIO|\n\s+at /);
    expect(ws.exists("ran")).toBe(false);
    const [id] = readdirSync(ws.path(".keel", "sessions"));
    expect(JSON.parse(readFileSync(ws.path(".keel", "sessions", id!, "status.json"), "utf8"))).toMatchObject({ status: "idle", reason: "cancelled" });
    expect(existsSync(ws.path(".keel", "sessions", id!, "writer.lock"))).toBe(false);
  });

  it("SIGTERM at the trust offer (the terminal still there): the question ends unanswered, the chat leaves", { timeout: 180_000 }, async () => {
    ws = makeWorkspace({ ".claude/settings.json": { hooks: HOOKS }, "model.json": JSON.stringify([{ text: "hi" }]) }, { git: true, under: "/var/tmp" });
    term = chatInTerminal();
    await term.waitFor("? Trust this workspace?");
    process.kill(Number(ws.read("keel.pid")), "SIGTERM");
    // Old code: the question did not listen to the command's cancel and kept waiting for an answer.
    const { exit, stderr } = await keelEnd(ws!);
    expect(exit, stderr).toEqual({ code: 0, signal: null });
    expect(existsSync(join(ws.keelHome, "trust.json"))).toBe(false);
    // keel wrote it before it exited; tmux draws what keel wrote in its own time (not necessarily before keel-exit.json).
    await term.waitFor("Keeping it restricted");
  });
});
