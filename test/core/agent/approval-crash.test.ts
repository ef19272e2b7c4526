import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { useOpenAIServer } from "../../helpers/openai-server.js";
import { KEEL_BIN, runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { closeTerminalAfterEach, HAS_TMUX, startTerminal, type Terminal } from "../../helpers/tmux.js";
import { isAlive as alive } from "../../../core/session/session-lock.js";

const server = useOpenAIServer();
let ws: TempWorkspace | undefined;
let term: Terminal | undefined;
closeTerminalAfterEach(() => ({ term, ws }));

describe.skipIf(!HAS_TMUX)("keel killed while asking a person to approve a call (real CLI on a terminal)", () => {
  it("the resumed session waits for that approval again, and approving it runs the call once", async () => {
    ws = makeWorkspace({}, { git: true });
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    server.push({ toolCalls: [{ id: "c1", name: "bash", arguments: { command: "echo once >> ran.txt" } }] });
    term = startTerminal([process.execPath, KEEL_BIN, "run", "--session", "s-asked", "append a line"], { cwd: ws.root, env: ws.env });
    await term.waitFor("Allow?");
    // the process that asks, killed without a chance to record anything more
    const lock = JSON.parse(readFileSync(ws.path(".keel/sessions/s-asked/writer.lock"), "utf8")) as { pid: number };
    process.kill(lock.pid, "SIGKILL");
    // dead (gone, or a zombie tmux has not reaped yet) before the next process opens the session: a live writer holds its lock
    for (let i = 0; i < 600 && alive(lock.pid); i++) await new Promise((r) => setTimeout(r, 50));
    expect(alive(lock.pid)).toBe(false);
    const resumed = await runKeel(["--json", "run", "--resume", "s-asked"], { cwd: ws.root, env: ws.env });
    expect(resumed.exitCode, resumed.stdout).toBe(2);
    expect(resumed.json().error.message).toContain("Session s-asked is waiting for approval of bash");
    expect(ws.exists("ran.txt")).toBe(false);
    server.push({ text: "Appended." });
    const approved = await runKeel(["--json", "sessions", "approve", "s-asked"], { cwd: ws.root, env: ws.env });
    expect(approved.exitCode, approved.stderr).toBe(0);
    expect(approved.json()).toMatchObject({ reason: "answer", text: "Appended." });
    expect(ws.read("ran.txt")).toBe("once\n");
  });
});
