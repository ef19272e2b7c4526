import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { requestText, useOpenAIServer } from "../helpers/openai-server.js";
import { KEEL_BIN, runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";
import { closeTerminalAfterEach, HAS_TMUX, startTerminal, type Terminal, waitForExit, waitUntil } from "../helpers/tmux.js";

const server = useOpenAIServer();
let ws: TempWorkspace | undefined;
let term: Terminal | undefined;
closeTerminalAfterEach(() => ({ term, ws }));

/**
 * The prompt command's sleep: 613 s, with this process's pid as its fraction, so that `ps` finds this test's shell line
 * only (the same test run by another suite on this machine has one of its own, which this test must not wait for).
 */
const SLEEP = `613.${process.pid}`;

function keel(w: TempWorkspace, ...args: string[]): Terminal {
  term = startTerminal([process.execPath, KEEL_BIN, ...args], { cwd: w.root, env: w.env });
  return term;
}

describe.skipIf(!HAS_TMUX)("keel chat, keel run and a session that waits for an approval (tmux)", () => {
  it("asks the call a keel run without a terminal paused on, inline and exactly; Ctrl-C leaves it waiting; y runs it and the prompt follows", async () => {
    const w = (ws = makeWorkspace({}, { git: true }));
    w.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    server.push({ toolCalls: [{ name: "bash", arguments: { command: "touch approved.txt" } }] });
    const paused = await runKeel(["--json", "run", "make the file"], { cwd: w.root, env: w.env });
    expect(paused.json().reason).toBe("awaiting_approval");
    const id: string = paused.json().sessionId;

    const t = keel(w, "--resume", id);
    let screen = await t.waitFor("Allow?");
    expect(screen).toContain('? bash wants to run [execute]: {"command":"touch approved.txt"}');
    expect(screen).toContain(`session ${id} paused for your approval of this call in a run that had no terminal to ask on`);
    // Ctrl-C is no answer: the session still waits, the chat goes on
    let mark = t.mark();
    t.send("C-c");
    await t.waitFor(`Not answered: session ${id} still waits`, { after: mark });
    expect(w.exists("approved.txt")).toBe(false);

    // the next prompt asks again first; y runs the call, the paused turn ends, then the prompt is sent
    server.push({ text: "Made the file." }, { text: "Next step done." });
    mark = t.mark();
    t.line("and then the next step");
    await t.waitFor("Allow?", { after: mark });
    t.line("y");
    screen = await t.waitFor(/Next step done.\n\[session \S+ · answer/, { after: mark });
    expect(screen.slice(mark)).toMatch(/✔ approved \(user\)[\s\S]*Made the file.\n\[session \S+ · answer[\s\S]*Next step done./);
    expect(w.exists("approved.txt")).toBe(true);
    expect(requestText(server.requests.at(-1)!)).toContain("and then the next step");
    t.line("/exit");
    await waitForExit(t);
  });

  it("/resume of a waiting session asks it; n refuses it and the model is told nothing ran", async () => {
    const w = (ws = makeWorkspace({}, { git: true }));
    w.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    server.push({ toolCalls: [{ name: "bash", arguments: { command: "touch refused.txt" } }] });
    const id: string = (await runKeel(["--json", "run", "make the file"], { cwd: w.root, env: w.env })).json().sessionId;
    const t = keel(w);
    await t.waitFor("/help for commands");
    server.push({ text: "I will not, then." });
    t.line(`/resume ${id}`);
    await t.waitFor("Allow?");
    t.line("n");
    await t.waitFor(/I will not, then.\n\[session \S+ · answer/);
    expect(requestText(server.requests.at(-1)!)).toContain("The user declined to run bash");
    expect(w.exists("refused.txt")).toBe(false);
    t.line("/exit");
    await waitForExit(t);
  });

  it("keel run --resume on a terminal asks the waiting call too, then sends its prompt", async () => {
    const w = (ws = makeWorkspace({}, { git: true }));
    w.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    server.push({ toolCalls: [{ name: "bash", arguments: { command: "touch resumed.txt" } }] });
    const id: string = (await runKeel(["--json", "run", "make the file"], { cwd: w.root, env: w.env })).json().sessionId;
    server.push({ text: "Made the file." }, { text: "Next step done." });
    const t = keel(w, "run", "--resume", id, "and then the next step");
    const screen = await t.waitFor("Allow?");
    expect(screen).toContain('? bash wants to run [execute]: {"command":"touch resumed.txt"}');
    t.line("y");
    await t.waitFor(/Next step done.\n(.*\n)*?\[session \S+ · answer/);
    expect(w.exists("resumed.txt")).toBe(true);
    expect(requestText(server.requests.at(-1)!)).toContain("and then the next step");
  });

  it("Ctrl-C while a prompt command's shell line runs cancels that command (its process ends), not the chat", async () => {
    const w = (ws = makeWorkspace(
      { ".claude/commands/slow.md": `---\ndescription: waits\nallowed-tools: Bash(sleep:*)\n---\nWaited !\`sleep ${SLEEP}\` then` },
      { git: true, under: "/var/tmp" },
    ));
    w.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    const t = keel(w, "--trust", "chat");
    await t.waitFor("/help for commands");
    const requests = server.requests.length;
    t.line("/slow");
    await waitUntil(() => sleeping().length > 0, t);
    const mark = t.mark();
    t.send("C-c");
    await t.waitFor("/slow cancelled: nothing was sent.", { after: mark });
    await waitUntil(() => sleeping().length === 0, t);
    expect(server.requests.length).toBe(requests);
    // the chat goes on
    server.push({ text: "Still here." });
    t.line("hello");
    await t.waitFor(/Still here.\n\[session/, { after: mark });
    t.line("/exit");
    await waitForExit(t);
  });
});

/** The `sleep SLEEP` processes running on this machine (the prompt command's shell line). */
function sleeping(): string[] {
  return execFileSync("ps", ["-eo", "pid,args"], { encoding: "utf8" })
    .split("\n")
    .filter((l) => l.endsWith(` sleep ${SLEEP}`));
}
