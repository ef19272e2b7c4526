import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { KEEL_BIN, runKeelProcess } from "../../helpers/run-cli.js";
import type { TempWorkspace } from "../../helpers/temp-workspace.js";
import { closeTerminalAfterEach, HAS_TMUX, startTerminal, type Terminal } from "../../helpers/tmux.js";
import { mcpWorkspace, nodeServer } from "./mcp-test-kit.js";

/** The SDK server that answers `initialize` only once `<name>.gate` exists (see the fixture). */
const GATED = fileURLToPath(new URL("./fixtures/gated-server.mjs", import.meta.url));
const gated = (name: string, startupTimeoutMs: number) =>
  nodeServer(GATED, [], { env: { KEEL_GATE: `${name}.gate`, KEEL_PID_FILE: `${name}.pid` }, startupTimeoutMs });

let ws: TempWorkspace | undefined;
let term: Terminal | undefined;
closeTerminalAfterEach(() => ({ term, ws }));

describe("progress while a command waits for MCP servers to start", () => {
  it.skipIf(!HAS_TMUX)("on a terminal, keel says which server it waits for and for how long at most; the answer follows once it starts", async () => {
    ws = mcpWorkspace({ slow: gated("slow", 600_000) });
    term = startTerminal([process.execPath, KEEL_BIN, "--trust", "mcp", "list"], { cwd: ws.root, env: ws.env });
    await term.waitFor('keel: waiting for MCP server "slow" to start (at most 600 s; "startupTimeoutMs" sets that');
    expect(term.exited()).toBe(false);
    ws.write("slow.gate", "");
    const screen = await term.waitFor(/slow\s.*connected/);
    expect(screen.match(/waiting for MCP server/g)).toHaveLength(1);
  });

  it("not on a terminal, stderr stays free of progress (a script reads results and errors only)", async () => {
    // Hangs in initialize for its whole 4 s start-up timeout, past the moment a terminal would be told.
    ws = mcpWorkspace({ slow: gated("slow", 4_000) });
    const r = await runKeelProcess(["--trust", "--json", "mcp", "list"], { cwd: ws.root, env: ws.env });
    expect(JSON.parse(r.stdout).servers).toEqual([expect.objectContaining({ name: "slow", state: "failed" })]);
    expect(r.stderr).not.toContain("waiting for");
  });
});
