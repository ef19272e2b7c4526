import { describe, expect, it } from "vitest";
import { requestText, useOpenAIServer } from "../helpers/openai-server.js";
import { KEEL_BIN, runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";
import { closeTerminalAfterEach, HAS_TMUX, startTerminal, type Terminal, waitForExit } from "../helpers/tmux.js";

const server = useOpenAIServer();
let ws: TempWorkspace | undefined;
let term: Terminal | undefined;
closeTerminalAfterEach(() => ({ term, ws }));

/**
 * A strict ask: a command whose name keel cannot read (a substitution) while an ask rule names bash. Only an explicit
 * answer approves it; an "always" given to it must not approve later bash calls, strict or not — it would be an
 * "always" for a command no one could read, so for any command.
 */
const STRICT = (file: string) => `$(echo touch) ${file}`;
const ASK_RM = { permissions: { ask: ["bash(rm *)"] } };

function keel(w: TempWorkspace, ...args: string[]): Terminal {
  term = startTerminal([process.execPath, KEEL_BIN, ...args], { cwd: w.root, env: w.env });
  return term;
}

describe.skipIf(!HAS_TMUX)('"always" answered to a strict ask on a terminal (tmux)', () => {
  it("runs that call only: the next strict call and the next plain bash call of the session are asked again", async () => {
    const w = (ws = makeWorkspace({}, { git: true }));
    w.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl }, ...ASK_RM });
    server.push(
      { toolCalls: [{ name: "bash", arguments: { command: STRICT("one.txt") } }] },
      { toolCalls: [{ name: "bash", arguments: { command: STRICT("two.txt") } }] },
      { toolCalls: [{ name: "bash", arguments: { command: "touch three.txt" } }] },
      { text: "Stopped there." },
    );
    const t = keel(w, "chat");
    await t.waitFor("/help for commands");
    let mark = t.mark();
    t.line("make the files");
    // the question offers "always" for it too: answered, it approves this call only
    let screen = await t.waitFor("Allow?", { after: mark });
    expect(screen.slice(mark)).toContain("one.txt");
    expect(screen.slice(mark)).toContain("cannot check statically");
    expect(screen.slice(mark)).toContain("[a]lways for this session");
    mark = t.mark();
    t.line("a");
    // a second strict call is asked again
    screen = await t.waitFor("Allow?", { after: mark });
    expect(screen.slice(mark)).toMatch(/✔ approved \(user\)/);
    expect(screen.slice(mark)).toContain("two.txt");
    expect(screen.slice(mark)).not.toContain("approved (session)");
    expect(w.exists("one.txt")).toBe(true);
    mark = t.mark();
    t.line("n");
    // and so is a bash call keel can read, which an "always" for bash would approve
    screen = await t.waitFor("Allow?", { after: mark });
    expect(screen.slice(mark)).toContain("touch three.txt");
    expect(screen.slice(mark)).not.toContain("approved (session)");
    mark = t.mark();
    t.line("n");
    await t.waitFor(/Stopped there.\n\[session/, { after: mark });
    expect(w.exists("two.txt")).toBe(false);
    expect(w.exists("three.txt")).toBe(false);
    expect(requestText(server.requests.at(-1)!)).toContain("The user declined to run bash");
    t.line("/exit");
    await waitForExit(t);
  });

  it("a strict call a keel run without a terminal paused on, answered a in keel chat, approves no later bash call", async () => {
    const w = (ws = makeWorkspace({}, { git: true }));
    w.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl }, ...ASK_RM });
    server.push({ toolCalls: [{ name: "bash", arguments: { command: STRICT("paused.txt") } }] });
    const paused = await runKeel(["--json", "run", "make the file"], { cwd: w.root, env: w.env });
    expect(paused.json().reason).toBe("awaiting_approval");
    const id: string = paused.json().sessionId;

    server.push({ text: "Made it." });
    const t = keel(w, "--resume", id);
    let screen = await t.waitFor("Allow?");
    expect(screen).toContain("paused.txt");
    let mark = t.mark();
    t.line("a");
    await t.waitFor(/Made it.\n\[session/, { after: mark });
    expect(w.exists("paused.txt")).toBe(true);

    // a plain bash call later in this chat is asked, not approved by that "a"
    server.push({ toolCalls: [{ name: "bash", arguments: { command: "touch later.txt" } }] }, { text: "Stopped there." });
    mark = t.mark();
    t.line("and another");
    screen = await t.waitFor("Allow?", { after: mark });
    expect(screen.slice(mark)).toContain("touch later.txt");
    expect(screen.slice(mark)).not.toContain("approved (session)");
    mark = t.mark();
    t.line("n");
    await t.waitFor(/Stopped there.\n\[session/, { after: mark });
    expect(w.exists("later.txt")).toBe(false);
    t.line("/exit");
    await waitForExit(t);
  });

  it("a plain call a keel run paused on, answered a in keel chat, approves that tool for the rest of the chat", async () => {
    const w = (ws = makeWorkspace({}, { git: true }));
    w.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl }, ...ASK_RM });
    server.push({ toolCalls: [{ name: "bash", arguments: { command: "touch paused.txt" } }] });
    const id: string = (await runKeel(["--json", "run", "make the file"], { cwd: w.root, env: w.env })).json().sessionId;
    server.push({ text: "Made it." });
    const t = keel(w, "--resume", id);
    await t.waitFor("Allow?");
    let mark = t.mark();
    t.line("a");
    await t.waitFor(/Made it.\n\[session/, { after: mark });
    server.push({ toolCalls: [{ name: "bash", arguments: { command: "touch later.txt" } }] }, { text: "Done." });
    mark = t.mark();
    t.line("and another");
    const screen = await t.waitFor(/Done.\n\[session/, { after: mark });
    expect(screen.slice(mark)).toMatch(/● bash\s+touch later.txt\n\s+✔ approved \(session\)/);
    expect(screen.slice(mark)).not.toContain("Allow?");
    expect(w.exists("later.txt")).toBe(true);
    t.line("/exit");
    await waitForExit(t);
  });
});
