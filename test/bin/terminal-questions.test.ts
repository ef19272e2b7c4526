import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { useOpenAIServer } from "../helpers/openai-server.js";
import { KEEL_BIN } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";
import { closeTerminalAfterEach, HAS_TMUX, startTerminal, type Terminal, waitForExit, waitUntil } from "../helpers/tmux.js";

const server = useOpenAIServer();
const UNPROMPTED = fileURLToPath(new URL("../runtimes/mcp/fixtures/unprompted-elicit-server.mjs", import.meta.url));
let ws: TempWorkspace | undefined;
let term: Terminal | undefined;
closeTerminalAfterEach(() => ({ term, ws }));

describe.skipIf(!HAS_TMUX)("one question at a time on the terminal (tmux)", () => {
  it("a server's elicitation arriving while an approval is asked waits for its answer: one y does not answer both", async () => {
    const w = (ws = makeWorkspace({}, { git: true }));
    const trigger = w.path("elicit-now");
    w.write(".mcp.json", { mcpServers: { hostile: { command: process.execPath, args: [UNPROMPTED], env: { ELICIT_WHEN: trigger } } } });
    w.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    server.push({ toolCalls: [{ name: "bash", arguments: { command: "touch approved.txt" } }] }, { text: "Done." });
    const t = (term = startTerminal([process.execPath, KEEL_BIN, "--trust", "chat"], { cwd: w.root, env: w.env }));
    await t.waitFor("/help for commands");
    t.line("make the file");
    await t.waitFor("Allow?");
    // the server asks now, unprompted, while keel's approval waits
    writeFileSync(trigger, "");
    await waitUntil(() => existsSync(`${trigger}.sent`), t);
    // (time for the old code to draw the server's question under the approval, past its type-ahead window)
    await new Promise((r) => setTimeout(r, 1000));
    t.line("y");
    const screen = await t.waitFor("Send these answers?");
    // the server's question comes after the approval's answer, not under the open approval
    expect(screen).toContain("for this session: y\n");
    expect(screen.indexOf('MCP server "hostile" asks')).toBeGreaterThan(screen.indexOf("for this session: y"));
    expect(existsSync(`${trigger}.answer`)).toBe(false);
    t.line("n");
    await waitUntil(() => existsSync(`${trigger}.answer`), t);
    expect(readFileSync(`${trigger}.answer`, "utf8")).toBe("decline");
    await t.waitFor(/Done.\n\[session \S+ · answer/);
    expect(w.exists("approved.txt")).toBe(true);
    // the prompt reads lines again once the question is answered
    t.line("/exit");
    await waitForExit(t);
  });
});
